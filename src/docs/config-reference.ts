import { z } from 'zod';
import { EnvSchema } from '../config.js';
import type { GeneratedPart } from './generated-parts.js';

/**
 * The configuration reference (docs/operations.md) and `.env.example`, both generated from the
 * zod schema in src/config.ts: each variable's `.describe()` text, default, accepted values and
 * what leaving it unset means. Nothing here is written twice.
 */
interface Variable {
  name: string;
  description: string;
  default?: unknown;
  unset?: string;
  example?: string;
  type?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  format?: string;
}

function variables(): Variable[] {
  const schema = z.toJSONSchema(EnvSchema, { io: 'input', unrepresentable: 'any' }) as {
    properties: Record<string, Omit<Variable, 'name'>>;
  };
  return Object.entries(schema.properties).map(([name, v]) => {
    if (!v.description) throw new Error(`src/config.ts: ${name} has no .describe() text`);
    return { name, ...v };
  });
}

const code = (value: unknown) => `\`${String(value)}\``;

function accepted(v: Variable): string {
  if (v.enum) return v.enum.map(code).join(', ');
  if (v.type === 'integer' || v.type === 'number') {
    const min = v.minimum ?? (v.exclusiveMinimum !== undefined ? v.exclusiveMinimum + 1 : undefined);
    const max = v.maximum !== undefined && v.maximum < Number.MAX_SAFE_INTEGER ? v.maximum : undefined;
    if (min !== undefined && max !== undefined) return `integer ${min}–${max}`;
    if (min !== undefined) return `integer ≥ ${min}`;
    return 'integer';
  }
  if (v.format === 'uri') return 'URL';
  return 'text';
}

function defaultText(v: Variable): string {
  if (v.default !== undefined) return code(v.default);
  return v.unset ? `unset: ${v.unset}` : 'unset';
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

export function configReference(): GeneratedPart {
  const rows = variables().map(
    (v) => `| \`${v.name}\` | ${cell(defaultText(v))} | ${cell(accepted(v))} | ${cell(v.description)} |`,
  );
  return {
    file: 'docs/operations.md',
    region: 'config',
    source: 'src/config.ts',
    text: ['| Variable | Default | Accepted | Meaning |', '| --- | --- | --- | --- |', ...rows].join('\n'),
  };
}

/** Wraps a comment at about 100 columns. */
function comment(text: string): string[] {
  const lines: string[] = [];
  let line = '#';
  for (const word of text.replace(/`/g, '').split(/\s+/)) {
    if (line.length + word.length + 1 > 100 && line !== '#') {
      lines.push(line);
      line = '#';
    }
    line += ` ${word}`;
  }
  return [...lines, line];
}

export function envExample(): GeneratedPart {
  const blocks = variables().map((v) => {
    const facts = [
      `accepted: ${accepted(v)}`,
      v.default === undefined && v.unset ? `unset: ${v.unset}` : null,
    ]
      .filter(Boolean)
      .join('; ');
    const value = v.default !== undefined ? code(v.default).slice(1, -1) : (v.example ?? '');
    return [...comment(`${v.description} (${facts})`), `# ${v.name}=${value}`].join('\n');
  });
  return {
    file: '.env.example',
    source: 'src/config.ts',
    text: [
      '# Property Data Service configuration, generated from src/config.ts by `npm run docs:emit`.',
      '# Every variable is optional: the defaults shown run the embedded demo. Values are validated once',
      '# at start; every problem is listed and the process exits non-zero.',
      '',
      blocks.join('\n\n'),
      '',
    ].join('\n'),
  };
}
