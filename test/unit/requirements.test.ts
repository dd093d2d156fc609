import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
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

describe('every test file that can skip', () => {
  it('on a missing service skips through describeWith/itWith or fails under CI itself, never a bare conditional skip', () => {
    const root = join(import.meta.dirname, '..');
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const bare = files.filter((file) => {
      if (file === join('support', 'requirements.ts') || file === join('unit', 'requirements.test.ts'))
        return false;
      const text = readFileSync(join(root, file), 'utf8');
      const conditional = /\?\s*(describe|it)\s*:\s*(describe|it)\.skip|\?\s*(describe|it)\.skip\s*:/.test(
        text,
      );
      // A skip on a service CI provides (PostgreSQL, Redis, Chromium) must fail when CI is set and
      // the service is missing; a skip on the runtime itself (a Node version) is not about CI.
      const needsService = /DATABASE_URL|REDIS_URL|PG_BIN|chromium/i.test(text);
      return conditional && needsService && !/runningInCi\(\)|process\.env\.CI/.test(text);
    });
    expect(bare).toEqual([]);
  });
});
