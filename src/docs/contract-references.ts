import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ERROR_CATALOGUE } from '../errors/catalogue.js';
import type { GeneratedPart } from './generated-parts.js';
import { fieldTable, limits, resolveRef, type JsonSchema } from './json-schema-table.js';

/**
 * The reference parts of docs/ generated from the committed contracts: the Fusion REST reference
 * from schema/openapi.json, the MCP tools reference from schema/mcp-tools.json, and the error
 * codes from the error catalogue. They read the committed files, so `npm run schema:emit` (which
 * writes them, then runs these) keeps both in step.
 */
interface OpenApiOperation {
  operationId?: string;
  summary?: string;
  description?: string;
  parameters?: (JsonSchema & { name?: string; in?: string; required?: boolean; schema?: JsonSchema })[];
  requestBody?: JsonSchema & { content?: Record<string, { schema?: JsonSchema }> };
  responses?: Record<
    string,
    JsonSchema & { content?: Record<string, { schema?: JsonSchema }>; headers?: object }
  >;
}
interface OpenApi {
  info?: { title?: string; description?: string };
  servers?: { url: string }[];
  paths: Record<string, Record<string, OpenApiOperation>>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

function readJson<T>(root: string, file: string): T {
  return JSON.parse(readFileSync(resolve(root, file), 'utf8')) as T;
}

const oneLine = (text: string | undefined) => (text ?? '').replace(/\s+/g, ' ').trim();

export function openApiReference(root: string): GeneratedPart {
  const doc = readJson<OpenApi>(root, 'schema/openapi.json');
  const base = (doc.servers?.[0]?.url ?? '').replace(/\/$/, '');
  const out: string[] = [];
  if (doc.info?.description) out.push(oneLine(doc.info.description), '');
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      out.push(`### \`${method.toUpperCase()} ${base}${path}\``, '');
      if (op.summary)
        out.push(`${oneLine(op.summary)}${op.operationId ? ` (\`${op.operationId}\`)` : ''}.`, '');
      if (op.description) out.push(oneLine(op.description), '');
      const params = (op.parameters ?? []).map((p) => resolveRef(doc, p));
      if (params.length) {
        out.push('| Parameter | In | Required | Schema | Description |', '| --- | --- | --- | --- | --- |');
        for (const p of params) {
          const schema = p.schema ? resolveRef(doc, p.schema) : {};
          const shape = [schema.type, schema.pattern ? `pattern \`${schema.pattern}\`` : null, limits(schema)]
            .filter(Boolean)
            .join(', ');
          out.push(
            `| \`${p.name}\` | ${p.in} | ${p.required ? 'yes' : 'no'} | ${shape} | ${oneLine(p.description)} |`,
          );
        }
        out.push('');
      }
      const body = op.requestBody ? resolveRef(doc, op.requestBody) : undefined;
      const bodySchema = body?.content?.['application/json']?.schema;
      if (bodySchema) {
        out.push('Request body (`application/json`):', '', fieldTable(doc, bodySchema) ?? '(any JSON)', '');
      }
      const responses = Object.entries(op.responses ?? {});
      if (responses.length) {
        out.push('| Status | Meaning |', '| --- | --- |');
        for (const [status, r] of responses)
          out.push(`| ${status} | ${oneLine(resolveRef(doc, r).description)} |`);
        out.push('');
      }
      const ok = responses.find(([status]) => /^2/.test(status));
      const okSchema = ok && resolveRef(doc, ok[1]).content?.['application/json']?.schema;
      if (ok && okSchema) {
        out.push(`Answer (${ok[0]}):`, '', fieldTable(doc, okSchema) ?? '(any JSON)', '');
      }
    }
  }
  return {
    file: 'docs/integrators.md',
    region: 'openapi',
    source: 'schema/openapi.json',
    text: out.join('\n'),
  };
}

interface McpTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations?: Record<string, unknown>;
}

export function mcpToolsReference(root: string): GeneratedPart {
  const { tools } = readJson<{ tools: McpTool[] }>(root, 'schema/mcp-tools.json');
  const out: string[] = [];
  for (const tool of tools) {
    out.push(`### \`${tool.name}\`${tool.title ? `: ${tool.title}` : ''}`, '');
    if (tool.description) out.push(oneLine(tool.description), '');
    const hints = Object.entries(tool.annotations ?? {})
      .filter(([, v]) => v === true)
      .map(([k]) => `\`${k}\``);
    if (hints.length) out.push(`Annotations: ${hints.join(', ')}.`, '');
    out.push('Arguments:', '', fieldTable(tool, tool.inputSchema, 'Argument') ?? 'none.', '');
    if (tool.outputSchema) {
      out.push('Output (`structuredContent`):', '', fieldTable(tool, tool.outputSchema) ?? '(any JSON)', '');
    }
  }
  return {
    file: 'docs/ai-clients.md',
    region: 'mcp-tools',
    source: 'schema/mcp-tools.json',
    text: out.join('\n'),
  };
}

export function mcpResourcesReference(root: string): GeneratedPart {
  const { resourceTemplates } = readJson<{
    resourceTemplates: {
      uriTemplate: string;
      name: string;
      title: string;
      description: string;
      mimeType: string;
    }[];
  }>(root, 'schema/mcp-resources.json');
  const rows = resourceTemplates.map(
    (t) =>
      `| \`${t.uriTemplate}\` | \`${t.name}\`: ${t.title} | \`${t.mimeType}\` | ${oneLine(t.description)} |`,
  );
  return {
    file: 'docs/ai-clients.md',
    region: 'mcp-resources',
    source: 'schema/mcp-resources.json',
    text: ['| URI template | Name | Type | What it reads |', '| --- | --- | --- | --- |', ...rows].join('\n'),
  };
}

export function mcpPromptsReference(root: string): GeneratedPart {
  const { prompts } = readJson<{
    prompts: {
      name: string;
      title: string;
      description: string;
      arguments: { name: string; description: string; required: boolean }[];
    }[];
  }>(root, 'schema/mcp-prompts.json');
  const rows = prompts.map((p) => {
    const args = p.arguments
      .map((a) => `\`${a.name}\`${a.required ? ' (required)' : ''}: ${oneLine(a.description)}`)
      .join('; ');
    return `| \`${p.name}\` | ${p.title} | ${args || 'none'} | ${oneLine(p.description)} |`;
  });
  return {
    file: 'docs/ai-clients.md',
    region: 'mcp-prompts',
    source: 'schema/mcp-prompts.json',
    text: ['| Prompt | Title | Arguments | What it does |', '| --- | --- | --- | --- |', ...rows].join('\n'),
  };
}

export function errorReference(): GeneratedPart {
  const rows = Object.entries(ERROR_CATALOGUE).map(
    ([code, e]) => `| \`${code}\` | \`${e.graphql}\` | ${e.http} | ${e.mcp} | ${e.message} |`,
  );
  return {
    file: 'docs/graphql.md',
    region: 'errors',
    source: 'src/errors/catalogue.ts',
    text: [
      '| Error | GraphQL `extensions.code` | REST status | MCP | Default message |',
      '| --- | --- | --- | --- | --- |',
      ...rows,
      '',
      'MCP: `http-401` is an HTTP 401 with `WWW-Authenticate`; `tool-error` a tool result with `isError: true` and a message saying what to do; `unavailable` a JSON-RPC error `-32000` that keeps the request id; `internal` a JSON-RPC internal error.',
    ].join('\n'),
  };
}
