import type { GraphQLSchema } from 'graphql';
import { JSONRPCErrorException } from 'json-rpc-2.0';
import type { RequestContext } from '../../src/context/context.js';
import { MAX_QUERY_LENGTH } from '../../src/limits.js';
import { loadOperation, runOperation, type FacadeOperation } from '../operation.js';
import { JSONRPC } from './errors.js';
import type { ExtraPrompt, McpExtras } from './extras.js';
import type { ResourceContent } from './resources.js';
import { loadTools } from './tools.js';

/**
 * Prompts a researcher picks in a client (a slash command or a menu): each one sets out the tool
 * sequence for a common question and asks for answers cited with the PDF page urls the tools
 * return. A prompt that needs the caller's data reads it through GraphQL operations on the one
 * schema, under the caller's plan, as the tools do.
 */

export interface PromptDefinition {
  name: string;
  title: string;
  description: string;
  arguments: { name: string; description: string; required: boolean }[];
}

type Content =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string }
  | { type: 'resource'; resource: ResourceContent };

export interface PromptResult {
  description?: string;
  messages: { role: 'user' | 'assistant'; content: Content }[];
}

const CITE =
  'Cite every figure and claim with the url of the PDF page it comes from (each search hit and fetch answer carries one), so a reader can open and check it. Say plainly when a project publishes nothing on a point.';

export const PROMPTS: PromptDefinition[] = [
  {
    name: 'compare-incentives-in-city',
    title: 'Compare incentives of projects in a city',
    description:
      'Compares the purchase incentives (credits, free upgrades, capped development charges, assignment terms...) that the projects of one city publish, in a table with a cited source for each entry.',
    arguments: [{ name: 'city', description: 'City name, for example Toronto', required: true }],
  },
  {
    name: 'summarize-deposit-structure',
    title: "Summarize a project's deposit structure",
    description:
      "Summarizes a project's deposit schedule (amounts or percentages and when each is due) from its deposit-structure documents, with the text of the first one embedded and each figure cited.",
    arguments: [
      {
        name: 'project_id',
        description: 'A project id from list-projects or find-projects-mentioning',
        required: true,
      },
    ],
  },
  {
    name: 'find-feature-across-projects',
    title: 'Find a feature across projects',
    description:
      'Finds which projects mention a feature or finish (for example "quartz countertops" or "EV charging"), optionally in one city, and what each says about it, cited.',
    arguments: [
      { name: 'feature', description: 'A concrete feature, finish or fee', required: true },
      { name: 'city', description: 'Only projects in this city', required: false },
    ],
  },
];

const user = (text: string) => ({ role: 'user' as const, content: { type: 'text' as const, text } });

function invalid(message: string): never {
  throw new JSONRPCErrorException(message, JSONRPC.INVALID_PARAMS);
}

function stringArgument(args: Record<string, unknown>, name: string, required: boolean): string | null {
  const value = args[name];
  if (value === undefined || value === null || value === '') {
    if (required) invalid(`Missing required argument '${name}'`);
    return null;
  }
  if (typeof value !== 'string') invalid(`Argument '${name}' must be a string`);
  const trimmed = value.trim();
  if (!trimmed || trimmed.length > MAX_QUERY_LENGTH)
    invalid(`Argument '${name}' must be 1 to ${MAX_QUERY_LENGTH} characters`);
  return trimmed;
}

interface DocumentListing {
  data: { document_id: number; name: string; indexed: boolean }[];
}

interface DocumentText {
  document: { name: string; project_name: string };
  pages: { page_number: number; text: string; url: string }[];
  next_page: number | null;
}

const definition = ({ name, title, description, arguments: args }: PromptDefinition): PromptDefinition => ({
  name,
  title,
  description,
  arguments: args.map((a) => ({ name: a.name, description: a.description, required: a.required })),
});

export class Prompts {
  private readonly projectDocuments: FacadeOperation;
  private readonly readDocument: FacadeOperation;
  private readonly extras: Map<string, ExtraPrompt>;

  constructor(schema: GraphQLSchema, extras: McpExtras = {}) {
    this.projectDocuments = loadTools(schema).get('list-project-documents')!.operation;
    this.readDocument = loadOperation(schema, import.meta.dirname + '/resources', 'read-document.graphql');
    this.extras = new Map();
    for (const extra of extras.prompts ?? []) {
      if (PROMPTS.some((p) => p.name === extra.name) || this.extras.has(extra.name))
        throw new Error(`MCP extra prompt ${extra.name}: the name is already served`);
      this.extras.set(extra.name, extra);
    }
  }

  /** The service's prompts, then any extra ones. */
  list(): PromptDefinition[] {
    return [...PROMPTS, ...[...this.extras.values()].map(definition)];
  }

  async get(name: unknown, rawArgs: unknown, ctx: RequestContext): Promise<PromptResult> {
    const extra = typeof name === 'string' ? this.extras.get(name) : undefined;
    const prompt = extra ?? PROMPTS.find((p) => p.name === name);
    if (!prompt)
      invalid(
        `Unknown prompt: ${JSON.stringify(name)}. Available: ${this.list()
          .map((p) => p.name)
          .join(', ')}`,
      );
    if (rawArgs !== undefined && rawArgs !== null && (typeof rawArgs !== 'object' || Array.isArray(rawArgs)))
      invalid('arguments must be an object of strings');
    const args = (rawArgs ?? {}) as Record<string, unknown>;
    const known = new Set(prompt.arguments.map((a) => a.name));
    const unknown = Object.keys(args).find((k) => !known.has(k));
    if (unknown) invalid(`Unknown argument '${unknown}' for prompt ${prompt.name}`);
    if (extra) {
      const values: Record<string, string> = {};
      for (const a of extra.arguments) {
        const value = stringArgument(args, a.name, a.required);
        if (value !== null) values[a.name] = value;
      }
      return extra.get(values, ctx);
    }
    switch (prompt.name) {
      case 'compare-incentives-in-city': {
        const city = stringArgument(args, 'city', true)!;
        return {
          description: `Incentives of projects in ${city}`,
          messages: [
            user(
              [
                `Compare the purchase incentives offered by the development projects in ${city}.`,
                `1. Call list-projects with city "${city}" (follow meta.next_cursor to the end) to get every project id.`,
                '2. For each project, call search-document-text with its project_id and category "incentives", then again without the category, for concrete terms: "incentive", "credit", "free", "capped development charges", "assignment", "upgrade". Merge the hits.',
                '3. Read each hit in context with fetch-document-context before using it.',
                '4. Answer with a table: one row per project, columns for each kind of incentive found, and a short note of conditions or deadlines.',
                CITE,
              ].join('\n'),
            ),
          ],
        };
      }
      case 'find-feature-across-projects': {
        const feature = stringArgument(args, 'feature', true)!;
        const city = stringArgument(args, 'city', false);
        return {
          description: `Projects mentioning ${feature}${city ? ` in ${city}` : ''}`,
          messages: [
            user(
              [
                `Find which projects${city ? ` in ${city}` : ''} mention "${feature}" and what each says about it.`,
                `1. Call find-projects-mentioning with query "${feature}"; try two or three variants of the term (singular and plural, with and without hyphens, a common synonym) and merge the results, following meta.next_cursor to the end.`,
                city
                  ? `2. Keep the projects in ${city} (list-projects with city "${city}" gives their ids).`
                  : '2. Keep every project found.',
                '3. For each project, call search-document-text with its project_id and the term that matched, and read the best hit with fetch-document-context.',
                '4. Answer with one line per project: what it offers, in which document and on which page.',
                CITE,
              ].join('\n'),
            ),
          ],
        };
      }
      default:
        return this.depositStructure(args, ctx);
    }
  }

  /** The deposit prompt embeds the text of the project's first indexed deposit-structure document. */
  private async depositStructure(args: Record<string, unknown>, ctx: RequestContext): Promise<PromptResult> {
    const raw = stringArgument(args, 'project_id', true)!;
    if (!/^[1-9]\d{0,9}$/.test(raw) || Number(raw) > 2_147_483_647)
      invalid("Argument 'project_id' must be a project id (a positive integer)");
    const projectId = Number(raw);
    const listing = await runOperation<{ result: DocumentListing }>(
      this.projectDocuments,
      { project_id: projectId, category: 'deposit-structure' },
      ctx,
    );
    const documents = listing.result.data.filter((d) => d.indexed);
    const steps = [
      `Summarize the deposit structure of project ${projectId}: each deposit (amount or percentage of the price), when it is due (on signing, within N days, at occupancy...), and the total before occupancy.`,
      documents.length
        ? `Its deposit-structure documents: ${documents.map((d) => `${d.name} (pds://documents/${d.document_id})`).join(', ')}. The first one's text is embedded above, page by page with each page's url.`
        : 'It has no indexed deposit-structure document: call search-document-text with its project_id and the terms "deposit", "due on signing", "days" across its other documents (price lists and brochures often carry the schedule).',
      'If terms differ between documents or revisions, show both and say which is the latest.',
      CITE,
    ];
    const messages: PromptResult['messages'] = [];
    if (documents.length) {
      const text = await runOperation<{ result: DocumentText }>(
        this.readDocument,
        { document_id: documents[0].document_id, page: null },
        ctx,
      );
      const doc = text.result;
      const body = doc.pages.map((p) => `[Page ${p.page_number}: ${p.url}]\n${p.text}`).join('\n\n');
      messages.push({
        role: 'user',
        content: {
          type: 'resource',
          resource: {
            uri: `pds://documents/${documents[0].document_id}`,
            mimeType: 'text/plain',
            text: doc.next_page
              ? `${body}\n\n[More pages follow from page ${doc.next_page}: pds://documents/${documents[0].document_id}/pages/${doc.next_page}]`
              : body,
          },
        },
      });
    }
    messages.push(user(steps.join('\n')));
    return { description: `Deposit structure of project ${projectId}`, messages };
  }
}
