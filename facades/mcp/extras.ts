import type { RequestContext } from '../../src/context/context.js';
import type { PromptDefinition, PromptResult } from './prompts.js';
import type { ResourceContent, ResourceTemplate } from './resources.js';

/**
 * Resources, resource templates and prompts a caller of createApp adds to the MCP server beside
 * the service's own (the production server adds none; the conformance test registers the suite's
 * fixtures). They are served by the same JSON-RPC methods: listed after the service's own, read
 * and got after the bearer token, plan and rate limit are checked, with the request's context,
 * and their failures answered as the service's own are.
 */
export interface McpExtras {
  resources?: ExtraResource[];
  resourceTemplates?: ExtraResourceTemplate[];
  prompts?: ExtraPrompt[];
}

export interface ExtraResource {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
  read(ctx: RequestContext): Promise<ResourceContent[]>;
}

export interface ExtraResourceTemplate extends ResourceTemplate {
  /** `variables` are the template's expressions as matched in `uri` (RFC 6570). */
  read(uri: string, variables: Record<string, string>, ctx: RequestContext): Promise<ResourceContent[]>;
}

export interface ExtraPrompt extends PromptDefinition {
  /** `args` holds only declared arguments, each a non-empty trimmed string; required ones are present. */
  get(args: Record<string, string>, ctx: RequestContext): Promise<PromptResult>;
}
