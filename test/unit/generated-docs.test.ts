import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { docsParts } from '../../src/docs/docs-parts.js';
import { applyPart, EMIT_COMMAND } from '../../src/docs/generated-parts.js';
import { EnvSchema } from '../../src/config.js';

const ROOT = resolve(import.meta.dirname, '../..');
const read = (file: string) =>
  existsSync(resolve(ROOT, file)) ? readFileSync(resolve(ROOT, file), 'utf8') : null;

describe('generated docs', () => {
  it.each(docsParts().map((p) => [`${p.file}${p.region ? ` (${p.region})` : ''}`, p]))(
    `%s matches its source (run \`${EMIT_COMMAND}\` after changing it)`,
    (_name, part) => {
      const current = read(part.file);
      expect({ file: part.file, text: current }).toEqual({ file: part.file, text: applyPart(current, part) });
    },
  );

  it('documents every configuration variable once, in the reference and in .env.example', () => {
    const operations = read('docs/operations.md')!;
    const example = read('.env.example')!;
    for (const name of Object.keys(EnvSchema.shape)) {
      expect({ name, rows: operations.split(`| \`${name}\` |`).length - 1 }).toEqual({ name, rows: 1 });
      expect({ name, lines: example.split(`\n# ${name}=`).length - 1 }).toEqual({ name, lines: 1 });
    }
  });

  it('replaces only the marked region and keeps the prose around it', () => {
    const page = [
      'Intro.',
      '<!-- prettier-ignore-start -->',
      '<!-- generated:demo -->',
      'old',
      '<!-- end generated:demo -->',
      '<!-- prettier-ignore-end -->',
      'Outro.',
    ].join('\n');
    const next = applyPart(page, { file: 'x.md', region: 'demo', source: 'here', text: 'new' });
    expect(next.startsWith('Intro.\n')).toBe(true);
    expect(next.endsWith('\nOutro.')).toBe(true);
    expect(next).toContain('\nnew\n');
    expect(next).not.toContain('old');
    expect(applyPart(next, { file: 'x.md', region: 'demo', source: 'here', text: 'new' })).toBe(next);
    expect(() =>
      applyPart('no markers', { file: 'x.md', region: 'demo', source: 'here', text: 'new' }),
    ).toThrow(/no generated region "demo"/);
  });
});
