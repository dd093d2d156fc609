import { printSubgraphSchema } from '@apollo/subgraph';
import { PROMPTS } from '../facades/mcp/prompts.js';
import { RESOURCE_TEMPLATES } from '../facades/mcp/resources.js';
import { loadTools } from '../facades/mcp/tools.js';
import { buildOpenApi } from '../facades/rest/rest.plugin.js';
import { buildAppSchema } from './graphql/schema.js';

/**
 * Every generated contract, by file name under schema/. The facades add theirs (OpenAPI, MCP tool
 * list) here, so one emitter and one drift test cover them all.
 */
export async function renderContracts(): Promise<Record<string, string>> {
  const schema = await buildAppSchema();
  return {
    'subgraph.graphql': `${printSubgraphSchema(schema).trim()}\n`,
    'openapi.json': `${JSON.stringify(await buildOpenApi(), null, 2)}\n`,
    'mcp-tools.json': `${JSON.stringify({ tools: [...loadTools(schema).values()].map((t) => t.definition) }, null, 2)}\n`,
    'mcp-resources.json': `${JSON.stringify({ resourceTemplates: RESOURCE_TEMPLATES }, null, 2)}\n`,
    'mcp-prompts.json': `${JSON.stringify({ prompts: PROMPTS }, null, 2)}\n`,
  };
}
