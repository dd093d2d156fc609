import fc from 'fast-check';
import { PROPERTY_SEED } from '../support/property-seed.js';

describe('property tests', () => {
  it('run with the fixed seed, and a failure names it', () => {
    expect(fc.readConfigureGlobal().seed).toBe(PROPERTY_SEED);
    let message = '';
    try {
      fc.assert(fc.property(fc.integer(), (n) => n < 10));
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain(`seed: ${PROPERTY_SEED}`);
  });
});
