import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Kind, parse, type OperationDefinitionNode } from 'graphql';

/**
 * The code map (docs/architecture.md) is the newcomer's way from an entry point to the code that serves it: this
 * fails when it and the tree disagree, so it cannot rot quietly.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

interface Row {
  entry: string;
  document: string | null;
  field: string;
  resolver: string;
  service: string | null;
}

function codeMap(): Row[] {
  const page = read('docs/architecture.md');
  const start = page.indexOf('## Code map');
  const section = page.slice(start, page.indexOf('\n## ', start + 1));
  const unquote = (cell: string) => {
    const m = /`([^`]+)`/.exec(cell);
    return m ? m[1] : null;
  };
  return section
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| Entry') && !/^\|\s*-/.test(line))
    .map((line) => line.split('|').slice(1, -1))
    .map(([entry, document, field, resolver, service]) => ({
      entry: entry.trim(),
      document: unquote(document),
      field: unquote(field)!,
      resolver: unquote(resolver)!,
      service: unquote(service),
    }));
}

function rootFields(): string[] {
  const sdl = parse(read('schema/subgraph.graphql'));
  const fields: string[] = [];
  for (const def of sdl.definitions) {
    if (
      (def.kind === Kind.OBJECT_TYPE_DEFINITION || def.kind === Kind.OBJECT_TYPE_EXTENSION) &&
      (def.name.value === 'Query' || def.name.value === 'Mutation')
    )
      fields.push(...(def.fields ?? []).map((f) => f.name.value).filter((n) => !n.startsWith('_')));
  }
  return fields;
}

/** Whether `file` declares a @Query/@Mutation resolving `field` (by method name or `name:`). */
function defines(file: string, field: string): boolean {
  const source = read(file);
  const re = /@(?:Query|Mutation)\(([^@]*?)\)\s*\n\s*(?:@[^\n]*\n\s*)*(?:async\s+)?(\w+)\(/g;
  for (const m of source.matchAll(re)) {
    const named = /name:\s*'(\w+)'/.exec(m[1])?.[1];
    if ((named ?? m[2]) === field) return true;
  }
  return false;
}

/** Whether `file` imports `target` (a relative import resolving to it). */
function imports(file: string, target: string): boolean {
  return [...read(file).matchAll(/from '(\.{1,2}\/[^']+)'/g)].some(
    (m) => join(dirname(file), m[1].replace(/\.js$/, '.ts')) === target,
  );
}

describe('code map', () => {
  const rows = codeMap();

  it('lists every root field, MCP tool and REST route exactly once', () => {
    expect(rows.length).toBeGreaterThan(0);
    // A root field serves several entries at most once each (MCP `search` and `search-document-text`
    // are one field).
    const fields = rows.map((r) => r.field);
    expect([...new Set(fields)].sort()).toEqual(rootFields().sort());
    const tools = (JSON.parse(read('schema/mcp-tools.json')) as { tools: { name: string }[] }).tools;
    expect(
      rows
        .filter((r) => r.entry.startsWith('MCP `'))
        .map((r) => /`([^`]+)`/.exec(r.entry)![1])
        .sort(),
    ).toEqual(tools.map((t) => t.name).sort());
    // Every resource template, and resources/list, has its row.
    const templates = (
      JSON.parse(read('schema/mcp-resources.json')) as { resourceTemplates: { uriTemplate: string }[] }
    ).resourceTemplates;
    expect(
      rows
        .filter((r) => r.entry.startsWith('MCP resource '))
        .map((r) => /`([^`]+)`/.exec(r.entry)![1])
        .sort(),
    ).toEqual(['resources/list', ...templates.map((t) => t.uriTemplate)].sort());
    const openapi = JSON.parse(read('schema/openapi.json')) as { paths: Record<string, object> };
    const routes = Object.entries(openapi.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} /api/v1${path}`),
    );
    expect(
      rows
        .filter((r) => r.entry.startsWith('`'))
        .map((r) => /`([^`]+)`/.exec(r.entry)![1])
        .sort(),
    ).toEqual(routes.sort());
  });

  it.each(codeMap().map((r) => [r.field, r]))('%s: the files exist and do what the row says', (_f, row) => {
    const r = row;
    expect(existsSync(join(ROOT, r.resolver))).toBe(true);
    expect(defines(r.resolver, r.field)).toBe(true);
    if (r.service) {
      expect(existsSync(join(ROOT, r.service))).toBe(true);
      expect(imports(r.resolver, r.service)).toBe(true);
    }
    if (r.document) {
      const text = read(r.document);
      expect(text.split('\n')[0]).toBe(`# Resolver: ${r.resolver}`);
      const op = parse(text).definitions.find(
        (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
      )!;
      const first = op.selectionSet.selections[0];
      expect(first.kind === Kind.FIELD ? first.name.value : null).toBe(r.field);
    }
  });
});
