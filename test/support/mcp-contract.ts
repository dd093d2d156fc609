import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

type JsonSchema = { type?: string | string[]; properties?: Record<string, JsonSchema>; items?: JsonSchema };
interface CommittedTool {
  name: string;
  outputSchema: JsonSchema;
}

/** The tool list as committed under schema/: what clients read, so results are held to it, not to the live one. */
const committed = (
  JSON.parse(readFileSync(resolve(import.meta.dirname, '../../schema/mcp-tools.json'), 'utf8')) as {
    tools: CommittedTool[];
  }
).tools;

const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false });
const validators = new Map<string, ValidateFunction>(
  committed.map((tool) => [tool.name, ajv.compile(tool.outputSchema)]),
);

/** Every path of a tool's output schema that may be null, as `tool:data[].field`. */
export function nullablePaths(): string[] {
  const paths: string[] = [];
  const walk = (schema: JsonSchema, at: string) => {
    if (Array.isArray(schema.type) && schema.type.includes('null')) paths.push(at);
    for (const [key, child] of Object.entries(schema.properties ?? {})) walk(child, `${at}.${key}`);
    if (schema.items) walk(schema.items, `${at}[]`);
  };
  for (const tool of committed) walk(tool.outputSchema, `${tool.name}:`);
  return paths;
}

/** The null paths seen in results checked by this test file (see nullablePaths for the form). */
export const observedNulls = new Set<string>();

function recordNulls(value: unknown, at: string): void {
  if (value === null) observedNulls.add(at);
  else if (Array.isArray(value)) for (const v of value) recordNulls(v, `${at}[]`);
  else if (typeof value === 'object')
    for (const [k, v] of Object.entries(value)) recordNulls(v, `${at}.${k}`);
}

/**
 * Throws unless a successful tool result's structuredContent validates against the committed
 * outputSchema of that tool (and its text content holds the same JSON). Error results carry none.
 */
export function assertToolResult(name: string, result: Record<string, unknown>): void {
  if (result.isError) return;
  const validate = validators.get(name);
  if (!validate) throw new Error(`no committed tool named ${name}`);
  if (!validate(result.structuredContent)) {
    throw new Error(
      `${name} result does not match schema/mcp-tools.json: ${ajv.errorsText(validate.errors)}`,
    );
  }
  const text = (result.content as { type: string; text?: string }[] | undefined)?.[0]?.text;
  if (JSON.stringify(JSON.parse(text ?? 'null')) !== JSON.stringify(result.structuredContent)) {
    throw new Error(`${name}: the text content is not the structuredContent`);
  }
  recordNulls(result.structuredContent, `${name}:`);
}

/** The official SDK client, with every tool result checked against the committed contract. */
export class ContractClient extends Client {
  override async callTool(...args: Parameters<Client['callTool']>): ReturnType<Client['callTool']> {
    const result = await super.callTool(...args);
    assertToolResult(args[0].name, result);
    return result;
  }
}

/** The official SDK client connected to `${baseUrl}/mcp` with a bearer token, results checked as above. */
export async function connectContractClient(
  baseUrl: string,
  token: string,
  name = 'pds-test',
): Promise<ContractClient> {
  const client = new ContractClient({ name, version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}
