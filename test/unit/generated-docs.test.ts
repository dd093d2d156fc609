import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { docsParts } from '../../src/docs/docs-parts.js';
import { applyPart, EMIT_COMMAND } from '../../src/docs/generated-parts.js';
import { fieldTable } from '../../src/docs/json-schema-table.js';
import { EnvSchema } from '../../src/config.js';

const ROOT = resolve(import.meta.dirname, '../..');
const read = (file: string) =>
  existsSync(resolve(ROOT, file)) ? readFileSync(resolve(ROOT, file), 'utf8') : null;

describe('generated docs', () => {
  it.each(docsParts(ROOT).map((p) => [`${p.file}${p.region ? ` (${p.region})` : ''}`, p]))(
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

describe('field tables from JSON Schema', () => {
  it('follows local $refs, nests objects and arrays, and states limits and defaults', () => {
    const root = {
      components: {
        schemas: {
          Listing: {
            type: 'object',
            required: ['ref'],
            properties: {
              ref: { type: 'string', minLength: 1, maxLength: 100, description: 'Yours' },
              beds: { type: ['integer', 'null'], minimum: 0, maximum: 20, default: 1 },
            },
          },
        },
      },
    };
    const table = fieldTable(root, {
      type: 'object',
      required: ['listings'],
      properties: { listings: { type: 'array', maxItems: 100, items: { $ref: '#/components/schemas/Listing' } } },
    });
    expect(table?.split('\n').slice(2)).toEqual([
      '| `listings` | object[] | yes | 0 to 100 items |  |',
      '| `listings[].ref` | string | yes | 1 to 100 characters | Yours |',
      '| `listings[].beds` | integer \\| null | no | 0 to 20; default `1` |  |',
    ]);
  });
});
