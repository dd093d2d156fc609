import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import type { GraphQLSchema } from 'graphql';
import type { RequestContext } from '../../src/context/context.js';
import type { ExtraResource, ExtraResourceTemplate, McpExtras } from './extras.js';
import { loadOperation, runOperation, type FacadeOperation } from '../operation.js';
import { loadTools } from './tools.js';

/**
 * The documents as MCP resources: `resources/list` pages through every document the plan may read,
 * `resources/read` answers a document's extracted text page by page, and the templates address a
 * page or a project's documents. Each read is a GraphQL operation on the one schema, with the
 * caller's context (plan, rate limit), as the tools are.
 */

const RESOURCE_SCHEME = 'pds';

export interface ResourceTemplate {
  uriTemplate: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
}

/** The resource templates, in the order `resources/templates/list` gives them. */
export const RESOURCE_TEMPLATES: ResourceTemplate[] = [
  {
    uriTemplate: `${RESOURCE_SCHEME}://documents/{document_id}`,
    name: 'document',
    title: 'Document text',
    description:
      "The extracted text of a project PDF, one content item per page (its uri names the page), whole pages up to about 60 KB. When more follow, the result's _meta.next_page names the next page: read it with the document-page template. Pro plan: latest documents; Elite: older revisions too.",
    mimeType: 'text/plain',
  },
  {
    uriTemplate: `${RESOURCE_SCHEME}://documents/{document_id}/pages/{page}`,
    name: 'document-page',
    title: 'One page of a document',
    description:
      "One page of a project PDF's extracted text, with the result's _meta.next_page naming the next page that has text.",
    mimeType: 'text/plain',
  },
  {
    uriTemplate: `${RESOURCE_SCHEME}://projects/{project_id}/documents{?cursor}`,
    name: 'project-documents',
    title: "A project's documents",
    description:
      "A project's PDFs as list-project-documents answers them (JSON), indexed or not; each document's text reads at pds://documents/{document_id}. A longer inventory comes in pages: add ?cursor= with meta.next_cursor.",
    mimeType: 'application/json',
  },
];

/** A resource URI, parsed: which read it asks for, or null when it is none of ours. */
type ResourceRef =
  | { kind: 'document'; documentId: number; page: number | null }
  | { kind: 'project-documents'; projectId: number; cursor: string | null }
  | { kind: 'extra'; read: (ctx: RequestContext) => Promise<ResourceContent[]> };

const MAX_INT = 2_147_483_647;
const id = (text: string) => {
  const n = Number(text);
  return /^[1-9]\d{0,9}$/.test(text) && n <= MAX_INT ? n : null;
};

export function parseResourceUri(uri: string): ResourceRef | null {
  const doc = /^pds:\/\/documents\/(\d+)(?:\/pages\/(\d+))?$/.exec(uri);
  if (doc) {
    const documentId = id(doc[1]);
    const page = doc[2] === undefined ? null : id(doc[2]);
    if (documentId === null || (doc[2] !== undefined && page === null)) return null;
    return { kind: 'document', documentId, page };
  }
  const project = /^pds:\/\/projects\/(\d+)\/documents(?:\?cursor=([A-Za-z0-9_.%-]{1,1024}))?$/.exec(uri);
  if (project) {
    const projectId = id(project[1]);
    if (projectId === null) return null;
    return {
      kind: 'project-documents',
      projectId,
      cursor: project[2] ? decodeURIComponent(project[2]) : null,
    };
  }
  return null;
}

const documentUri = (documentId: number, page?: number) =>
  `${RESOURCE_SCHEME}://documents/${documentId}${page === undefined ? '' : `/pages/${page}`}`;

interface Operations {
  list: FacadeOperation;
  read: FacadeOperation;
  projectDocuments: FacadeOperation;
}

interface ListedResource {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
}

export interface ResourceList {
  resources: ListedResource[];
  nextCursor?: string;
}

/** One item of a read: text, or binary as Base64 in `blob`. */
export type ResourceContent =
  { uri: string; mimeType: string; text: string } | { uri: string; mimeType: string; blob: string };

export interface ResourceContents {
  contents: ResourceContent[];
  _meta?: Record<string, unknown>;
}

interface DocumentTextResult {
  document: {
    document_id: number;
    name: string;
    category: string;
    project_name: string;
    is_latest: boolean;
    extraction_status: string;
    page_count: number;
  };
  pages: { page_number: number; text: string; truncated: boolean; url: string }[];
  next_page: number | null;
}

const templateEntry = ({ uriTemplate, name, title, description, mimeType }: ResourceTemplate) => ({
  uriTemplate,
  name,
  title,
  description,
  mimeType,
});

const listed = ({ uri, name, title, description, mimeType }: ListedResource): ListedResource => ({
  uri,
  name,
  title,
  description,
  mimeType,
});

export class Resources {
  private readonly ops: Operations;
  private readonly extraResources: Map<string, ExtraResource>;
  private readonly extraTemplates: { template: UriTemplate; extra: ExtraResourceTemplate }[];

  constructor(schema: GraphQLSchema, extras: McpExtras = {}) {
    const dir = import.meta.dirname + '/resources';
    this.ops = {
      list: loadOperation(schema, dir, 'list-documents.graphql'),
      read: loadOperation(schema, dir, 'read-document.graphql'),
      // The project-documents template answers as the list-project-documents tool does.
      projectDocuments: loadTools(schema).get('list-project-documents')!.operation,
    };
    this.extraResources = new Map();
    for (const extra of extras.resources ?? []) {
      if (parseResourceUri(extra.uri) || this.extraResources.has(extra.uri))
        throw new Error(`MCP extra resource ${extra.uri}: the uri is already served`);
      this.extraResources.set(extra.uri, extra);
    }
    const templateNames = new Set(RESOURCE_TEMPLATES.map((t) => t.name));
    this.extraTemplates = (extras.resourceTemplates ?? []).map((extra) => {
      if (templateNames.has(extra.name))
        throw new Error(`MCP extra resource template ${extra.name}: the name is already served`);
      templateNames.add(extra.name);
      return { template: new UriTemplate(extra.uriTemplate), extra };
    });
  }

  /** What `resources/templates/list` answers: the service's templates, then any extra ones. */
  templates(): ResourceTemplate[] {
    return [...RESOURCE_TEMPLATES, ...this.extraTemplates.map(({ extra }) => templateEntry(extra))];
  }

  /** Which read a URI asks for: one of the service's resources, else an extra one; null for none. */
  resolve(uri: string): ResourceRef | null {
    const ref = parseResourceUri(uri);
    if (ref) return ref;
    const extra = this.extraResources.get(uri);
    if (extra) return { kind: 'extra', read: (ctx) => extra.read(ctx) };
    for (const { template, extra } of this.extraTemplates) {
      const matched = template.match(uri);
      if (!matched) continue;
      const variables = Object.fromEntries(
        Object.entries(matched).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : v]),
      );
      return { kind: 'extra', read: (ctx) => extra.read(uri, variables, ctx) };
    }
    return null;
  }

  async list(cursor: string | undefined, ctx: RequestContext): Promise<ResourceList> {
    const data = await runOperation<{
      result: {
        data: {
          document_id: number;
          name: string;
          category: string;
          project_name: string;
          is_latest: boolean;
          extraction_status: string;
          page_count: number;
        }[];
        meta: { next_cursor: string | null };
      };
    }>(this.ops.list, { cursor: cursor ?? null }, ctx);
    const { result } = data;
    const documents = result.data.map((d) => ({
      uri: documentUri(d.document_id),
      name: d.name,
      title: `${d.name} (${d.project_name})`,
      description: `${d.category}: ${d.page_count} pages, extraction ${d.extraction_status}${d.is_latest ? '' : '; an older revision'}`,
      mimeType: 'text/plain',
    }));
    if (result.meta.next_cursor) return { resources: documents, nextCursor: result.meta.next_cursor };
    // Extra resources follow the documents, on the last page.
    return { resources: [...documents, ...[...this.extraResources.values()].map(listed)] };
  }

  /** The contents of a resource resolve() named; the caller refuses a URI it did not. */
  async read(uri: string, ref: ResourceRef, ctx: RequestContext): Promise<ResourceContents> {
    if (ref.kind === 'extra') return { contents: await ref.read(ctx) };
    if (ref.kind === 'project-documents') {
      const { result } = await runOperation<{ result: unknown }>(
        this.ops.projectDocuments,
        { project_id: ref.projectId, cursor: ref.cursor },
        ctx,
      );
      return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(result) }] };
    }
    const { result } = await runOperation<{ result: DocumentTextResult }>(
      this.ops.read,
      { document_id: ref.documentId, page: ref.page },
      ctx,
    );
    const doc = result.document;
    const contents = result.pages.map((p) => ({
      uri: documentUri(doc.document_id, p.page_number),
      mimeType: 'text/plain',
      text: p.text,
    }));
    if (contents.length === 0) {
      const why =
        ref.page === null
          ? `${doc.name} has no extracted text (extraction ${doc.extraction_status}).`
          : `Page ${ref.page} of ${doc.name} has no extracted text.`;
      contents.push({ uri, mimeType: 'text/plain', text: why });
    }
    return {
      contents,
      _meta: {
        document_id: doc.document_id,
        document_name: doc.name,
        project_name: doc.project_name,
        category: doc.category,
        page_count: doc.page_count,
        pages: result.pages.map((p) => ({ page_number: p.page_number, url: p.url, truncated: p.truncated })),
        next_page: result.next_page,
      },
    };
  }
}
