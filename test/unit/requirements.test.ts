import { describeWith, itWith } from '../support/requirements.js';

describe('suites that need PostgreSQL, Redis or Chromium', () => {
  const ci = process.env.CI;
  afterEach(() => {
    if (ci === undefined) delete process.env.CI;
    else process.env.CI = ci;
  });

  it('run when what they need is there', () => {
    expect(describeWith(true, 'x')).toBe(describe);
    expect(itWith(true, 'x')).toBe(it);
  });

  it('are skipped outside CI when it is missing', () => {
    delete process.env.CI;
    expect(describeWith(false, 'x')).toBe(describe.skip);
    expect(itWith(false, 'x')).toBe(it.skip);
  });

  it('under CI=true are never skipped: a missing dependency becomes a failing test', () => {
    process.env.CI = 'true';
    for (const chosen of [describeWith(false, 'x'), itWith(false, 'x')] as unknown[]) {
      expect(chosen).not.toBe(describe.skip);
      expect(chosen).not.toBe(it.skip);
      expect(chosen).not.toBe(describe);
      expect(chosen).not.toBe(it);
    }
  });
});
