import { diffLines, numberChanges } from '../../../src/revisions/line-diff.js';

describe('numbers paired between two lines', () => {
  it.each([
    ['Suite 1B  $1,249,900', 'Suite 1B $1,279,900', [{ before: '$1,249,900', after: '$1,279,900' }]],
    ['5% in 30 days', '10% in 30 days', [{ before: '5%', after: '10%' }]],
    [
      'Suite 805 850 sq ft $749,900',
      'Suite 805 870 sq ft $759,900',
      [
        { before: '850', after: '870' },
        { before: '$749,900', after: '$759,900' },
      ],
    ],
    ['Occupancy: 2027-05-01', 'Occupancy: 2028-01-15', [{ before: '2027-05-01', after: '2028-01-15' }]],
    ['Occupancy May 2027', 'Occupancy September 2028', [{ before: 'May 2027', after: 'September 2028' }]],
    ['Deposit $10,000 on signing', 'Deposit $20,000 on signing', [{ before: '$10,000', after: '$20,000' }]],
    ['Maintenance $0.62 per sq ft', 'Maintenance $0.68 per sq ft', [{ before: '$0.62', after: '$0.68' }]],
  ])('%s → %s', (before, after, expected) => {
    expect(numberChanges(before, after)).toEqual(expected);
  });

  it.each([
    ['same numbers, other words', 'Suite 1B $1,249,900', 'Suite 1C sold'],
    ['other words around the numbers', '5% in 30 days', '5% in 60 business days'],
    ['no numbers at all', 'Quartz countertops', 'Granite countertops'],
    ['a number more', 'Suite 1B $1,249,900', 'Suite 1B $1,249,900 $10,000'],
    ['the same line', 'Suite 1B $1,249,900', 'Suite 1B $1,249,900'],
    ['another suite label', 'Suite 1B $1,249,900', 'Suite 1C $1,279,900'],
    ['every value new (another row)', '805 850 sq ft $749,900', '806 870 sq ft $759,900'],
  ])('no pairing when %s', (_, before, after) => {
    expect(numberChanges(before, after)).toBeNull();
  });
});

describe('line changes of a page', () => {
  it('pairs changed numbers and reports other lines as removed or added, in page order', () => {
    const before = [
      'Price list',
      'Suite 1A $999,900',
      'Suite 1B $1,249,900',
      'Suite 1C $1,399,000',
      'E.&O.E.',
    ].join('\n');
    const after = [
      'Price list',
      'Suite 1A $999,900',
      'Suite 1B $1,279,900',
      'Suite 1D $1,499,000',
      'E.&O.E.',
    ].join('\n');
    expect(diffLines(before, after)).toEqual([
      {
        kind: 'changed',
        before: 'Suite 1B $1,249,900',
        after: 'Suite 1B $1,279,900',
        numbers: [{ before: '$1,249,900', after: '$1,279,900' }],
      },
      { kind: 'removed', before: 'Suite 1C $1,399,000' },
      { kind: 'added', after: 'Suite 1D $1,499,000' },
    ]);
  });

  it('pairs the closest rows when a removed row looks like a revised one', () => {
    const before = ['Suite 3A 2 bed 850 sq ft N $749,900', 'Suite 4A 2 bed 850 sq ft N $751,900'].join('\n');
    const after = ['Suite 4A 2 bed 850 sq ft N $761,900'].join('\n');
    expect(diffLines(before, after)).toEqual([
      { kind: 'removed', before: 'Suite 3A 2 bed 850 sq ft N $749,900' },
      {
        kind: 'changed',
        before: 'Suite 4A 2 bed 850 sq ft N $751,900',
        after: 'Suite 4A 2 bed 850 sq ft N $761,900',
        numbers: [{ before: '$751,900', after: '$761,900' }],
      },
    ]);
  });

  it('a line spaced differently is no change; blank lines are ignored', () => {
    expect(diffLines('Suite 1A   $999,900\n\nE.&O.E.', 'Suite 1A $999,900\nE.&O.E.\n\n')).toEqual([]);
  });

  it('a page only one side has is all added or all removed', () => {
    expect(diffLines('', 'New incentive: $5,000 cash back')).toEqual([
      { kind: 'added', after: 'New incentive: $5,000 cash back' },
    ]);
    expect(diffLines('Old incentive', '')).toEqual([{ kind: 'removed', before: 'Old incentive' }]);
  });
});
