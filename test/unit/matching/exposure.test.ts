import { closestExposure, compassDistance, parseExposure } from '../../../src/matching/exposure.js';

describe('parseExposure', () => {
  it.each([
    ['S', ['S']],
    ['sw', ['SW']],
    ['S/W', ['SW']],
    ['S-W', ['SW']],
    ['S.W.', ['SW']],
    ['South', ['S']],
    ['south-west', ['SW']],
    ['Southwest', ['SW']],
    ['North East', ['N', 'E']],
    ['northeast', ['NE']],
    ['N, E', ['N', 'E']],
    ['north & east', ['N', 'E']],
    ['N and W', ['N', 'W']],
    ['S, S', ['S']],
  ])('%j → %j', (text, points) => {
    expect(parseExposure(text)).toEqual(points);
  });

  it.each(['', '  ', 'sunny', 'SSW', 'lake view', 'N, lake'])('%j is not an exposure', (text) => {
    expect(parseExposure(text)).toBeNull();
  });
});

describe('compass distance', () => {
  it.each([
    ['S', 'S', 0],
    ['SW', 'S', 1],
    ['S', 'SE', 1],
    ['N', 'NW', 1],
    ['NW', 'N', 1],
    ['N', 'E', 2],
    ['N', 'S', 4],
    ['NE', 'SW', 4],
    ['E', 'NW', 3],
  ] as const)('%s to %s: %d steps', (a, b, steps) => {
    expect(compassDistance(a, b)).toBe(steps);
    expect(compassDistance(b, a)).toBe(steps);
  });

  it('takes the closest faces of a corner suite', () => {
    expect(closestExposure(['N', 'E'], ['SE'])).toBe(1);
    expect(closestExposure(['N', 'E'], ['E'])).toBe(0);
    expect(closestExposure(['S'], ['N', 'NE'])).toBe(3);
  });
});
