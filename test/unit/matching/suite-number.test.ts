import { canonicalUnit, compareStacks, suiteStack } from '../../../src/matching/suite-number.js';

describe('suiteStack', () => {
  it.each([
    ['1204', 12, '04', false],
    ['504', 5, '04', false],
    ['10204', 102, '04', false],
    ['12-04', 12, '04', false],
    ['12 04', 12, '04', false],
    ['Suite 1204', 12, '04', false],
    ['#1204', 12, '04', false],
    ['Unit #1204', 12, '04', false],
    [' apt. 1204 ', 12, '04', false],
    ['1204A', 12, '04A', false],
    ['1204-a', 12, '04A', false],
    ['PH05', null, '05', true],
    ['PH-05', null, '05', true],
    ['ph 05', null, '05', true],
    ['PH205', null, '05', true],
    ['PH2-05', null, '05', true],
    ['PH05B', null, '05B', true],
    ['LPH03', null, '03', true],
    ['UPH1', null, '1', true],
    ['PH', null, null, true],
    ['TH3', null, null, false],
    ['7', null, null, false],
    ['', null, null, false],
    ['garden suite', null, null, false],
    ['1234567', null, null, false],
  ])('%j → floor %j, stack %j, penthouse %j', (unit, floor, stack, penthouse) => {
    expect(suiteStack(unit)).toEqual({ floor, stack, penthouse });
  });
});

describe('a suite number of three to five digits alone (read without the patterns)', () => {
  it('reads every one as the patterns read it (a leading space sends it through them)', () => {
    const differ: string[] = [];
    for (let length = 3; length <= 5; length++) {
      for (let n = 0; n < 10 ** length; n++) {
        const digits = String(n).padStart(length, '0');
        const viaPatterns = ` ${digits}`;
        if (
          JSON.stringify(suiteStack(digits)) !== JSON.stringify(suiteStack(viaPatterns)) ||
          canonicalUnit(digits) !== canonicalUnit(viaPatterns)
        )
          differ.push(digits);
      }
    }
    expect(differ).toEqual([]);
  });
});

describe('canonicalUnit', () => {
  it.each([
    ['1204', '12-04'],
    ['1204', 'Suite #1204'],
    ['1204', ' 1204 '],
    ['0504', '504'],
    ['PH05', 'PH-05'],
    ['PH05', 'ph 5'],
    ['PH2-05', 'PH205'],
    ['1204A', '12-04a'],
    ['TH-3', 'th3'],
  ])('%j and %j are one suite', (a, b) => {
    expect(canonicalUnit(a)).toBe(canonicalUnit(b));
  });

  it.each([
    ['1204', '1205'],
    ['1204', '1304'],
    ['1204', '1204A'],
    ['PH05', 'PH205'],
    ['PH03', 'LPH03'],
    ['PH05', '05'],
  ])('%j and %j are different suites', (a, b) => {
    expect(canonicalUnit(a)).not.toBe(canonicalUnit(b));
  });
});

describe('compareStacks', () => {
  it.each([
    ['04', '4', 'exact'],
    ['04A', '04a', 'exact'],
    ['004', '04', 'exact'],
    ['04A', '04', 'letter'],
    ['04', '04B', 'letter'],
    ['04A', '04B', 'letter'],
    ['04', '05', 'different'],
    ['04', '14', 'different'],
  ] as const)('%j vs %j: %s', (a, b, expected) => {
    expect(compareStacks(a, b)).toBe(expected);
  });
});
