import type { GraphQLSchema } from 'graphql';
import type { RequestContext } from '../../src/context/context.js';
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
  | { kind: 'project-documents'; projectId: number; cursor: string | null };

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

export interface ResourceList {
  resources: {
    uri: string;
    name: string;
    title: string;
    description: string;
    mimeType: string;
  }[];
  nextCursor?: string;
}

export interface ResourceContents {
  contents: { uri: string; mimeType: string; text: string }[];
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

export class Resources {
  private readonly ops: Operations;

  constructor(schema: GraphQLSchema) {
    const dir = import.meta.dirname + '/resources';
    this.ops = {
      list: loadOperation(schema, dir, 'list-documents.graphql'),
      read: loadOperation(schema, dir, 'read-document.graphql'),
      // The project-documents template answers as the list-project-documents tool does.
      projectDocuments: loadTools(schema).get('list-project-documents')!.operation,
    };
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
    return {
      resources: result.data.map((d) => ({
        uri: documentUri(d.document_id),
        name: d.name,
        title: `${d.name} (${d.project_name})`,
        description: `${d.category}: ${d.page_count} pages, extraction ${d.extraction_status}${d.is_latest ? '' : '; an older revision'}`,
        mimeType: 'text/plain',
      })),
      ...(result.meta.next_cursor ? { nextCursor: result.meta.next_cursor } : {}),
    };
  }

  /** The contents of a resource this server names (parseResourceUri); the caller refuses others. */
  async read(uri: string, ref: ResourceRef, ctx: RequestContext): Promise<ResourceContents> {
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
