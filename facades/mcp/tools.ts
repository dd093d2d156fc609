import { Kind, type FieldNode, type GraphQLSchema } from 'graphql';
import { CATEGORIES } from '../../src/enums.js';
import { loadOperation, type FacadeOperation } from '../operation.js';
import { inputSchemaFrom, outputSchemaFrom, type JsonSchema } from './tool-schema.js';
import {
  CONTEXT_WINDOW,
  describeRange,
  idSchema,
  MAX_QUERY_LENGTH,
  PROJECT_DOCUMENTS_PAGE,
  PROJECT_PAGE,
  PROJECTS_MENTIONING_LIMIT,
  MCP_PROJECTS_PER_PAGE,
  rangeSchema,
  REVISION_CHANGES_LIMIT,
  SEARCH_LIMIT,
} from '../../src/limits.js';

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  annotations: { readOnlyHint: true; openWorldHint: false; idempotentHint: true };
}

export interface Tool {
  definition: ToolDefinition;
  operation: FacadeOperation;
}

const QUERYING =
  'Matching is exact keyword plus synonyms (hyphen, quote, spacing and plural variants), not natural-language search: search concrete terms such as "quartz countertops", "30 inch gas range", "EV charging", never abstract ones such as "luxury" or "family friendly". Try a few variants of a term and merge the results yourself; if total matches stay 0 after a few variants, the term is not mentioned. meta.coverage tells how many documents could be searched, so 0 matches over 0 documents with text means "not indexed", not "not mentioned".';

const CATEGORY = {
  type: ['string', 'null'],
  enum: [...CATEGORIES, null],
  description: `One of: ${CATEGORIES.join(', ')}`,
};
const QUERY = {
  type: 'string',
  minLength: 1,
  maxLength: MAX_QUERY_LENGTH,
  description: 'A concrete term or phrase',
};
const CURSOR = {
  type: ['string', 'null'],
  maxLength: 1024,
  description:
    'meta.next_cursor of the previous answer, unchanged, with the same other arguments: the next page. Leave it out for the first page.',
};
const PAGING =
  'meta.next_cursor is set when more follow: call again with the same arguments and cursor set to it; null on the last page.';
const HISTORICAL = {
  type: ['boolean', 'null'],
  description:
    'Also search older revisions of documents. Takes effect on the Elite plan only; ignored on Pro.',
};

/** What the spec fixes for each tool: title, description, and the argument limits. */
const SPECS: Record<
  string,
  { file: string; title: string; description: string; rules: Record<string, JsonSchema> }
> = {
  'list-projects': {
    file: 'list-projects.graphql',
    title: 'List projects',
    description: `Lists real-estate development projects (pre-construction condos and towns) with their city, developer, status, size and price range. Filter by city, status (pre-construction, under-construction, completed, coming-soon, selling, sold-out), developer name or project name (q); paginate with page and per_page (${describeRange(MCP_PROJECTS_PER_PAGE)}) or, stable while projects are added, with cursor: ${PAGING} Use it to find project ids for the document tools.`,
    rules: {
      city: {
        type: ['string', 'null'],
        maxLength: MAX_QUERY_LENGTH,
        description: 'City name, case-insensitive',
      },
      status: { type: ['string', 'null'], maxLength: MAX_QUERY_LENGTH },
      developer: {
        type: ['string', 'null'],
        maxLength: MAX_QUERY_LENGTH,
        description: 'Developer name or part of it',
      },
      q: { type: ['string', 'null'], maxLength: MAX_QUERY_LENGTH, description: 'Project name or part of it' },
      page: rangeSchema(PROJECT_PAGE),
      per_page: rangeSchema(MCP_PROJECTS_PER_PAGE),
      cursor: { ...CURSOR, description: `${CURSOR.description} page is then ignored.` },
    },
  },
  'search-document-text': {
    file: 'search-document-text.graphql',
    title: 'Search project documents',
    description: `Searches the text extracted from project PDFs (brochures, features and finishes, price lists, deposit structures, incentives, fact sheets, hot lists) and returns matching chunks with an excerpt, page number and a stable citation. Use it after find-projects-mentioning with a project_id, or across all projects. ${QUERYING} ${PAGING} Read around a hit with fetch-document-context.`,
    rules: {
      query: QUERY,
      project_id: { ...idSchema('Restrict to one project'), type: ['integer', 'null'] },
      category: CATEGORY,
      include_historical: HISTORICAL,
      limit: rangeSchema(SEARCH_LIMIT, 'Chunks to return'),
      cursor: CURSOR,
    },
  },
  'find-projects-mentioning': {
    file: 'find-projects-mentioning.graphql',
    title: 'Find projects mentioning a term',
    description: `Finds which projects' PDFs mention a term (a feature, finish, incentive, fee...) across all projects, with a match count, the categories it appears in and a sample excerpt, ranked by match count then relevance. Start here for "which projects have X". ${QUERYING} ${PAGING}`,
    rules: {
      query: QUERY,
      category: CATEGORY,
      include_historical: HISTORICAL,
      limit: rangeSchema(PROJECTS_MENTIONING_LIMIT, 'Projects to return'),
      cursor: CURSOR,
    },
  },
  'list-project-documents': {
    file: 'list-project-documents.graphql',
    title: 'List project documents',
    description: `Inventory of the PDFs of one project, including documents that are not searchable (failed extraction, scanned without text, still pending) with their extraction status, page count and indexing time, ${PROJECT_DOCUMENTS_PAGE} at a time. Use it to see what a project has published before searching, or to explain why a search found nothing. ${PAGING}`,
    rules: {
      project_id: idSchema('A project id from list-projects or find-projects-mentioning'),
      category: CATEGORY,
      include_historical: HISTORICAL,
      cursor: CURSOR,
    },
  },
  'fetch-document-context': {
    file: 'fetch-document-context.graphql',
    title: 'Read around a search hit',
    description:
      'Returns the chunks before and after a chunk_id from search-document-text, in document order, with the requested chunk flagged is_center. Use it to read a hit in context before citing it. A chunk_id belongs to one extraction: after a document is re-indexed an old chunk_id answers "not found" - search again for fresh ids.',
    rules: {
      chunk_id: idSchema('A chunk_id from search-document-text'),
      before: rangeSchema(CONTEXT_WINDOW, 'Chunks before the hit'),
      after: rangeSchema(CONTEXT_WINDOW, 'Chunks after the hit'),
    },
  },
  search: {
    file: 'search.graphql',
    title: 'Search project documents (research clients)',
    description: `Searches the text of project PDFs for a term and returns up to 25 results, each with an id for fetch, a title (document, project, page) and a url that opens the PDF at that page. The same search as search-document-text, in the shape research clients such as ChatGPT connectors use. ${QUERYING}`,
    rules: { query: QUERY },
  },
  fetch: {
    file: 'fetch.graphql',
    title: 'Read a search result',
    description:
      'Reads a result of search by its id: the matching passage with up to two chunks before and after it (at most about 5,000 characters), its title, the url of the PDF at its page, and where it comes from (document, project, page, stable citation). An id belongs to one extraction: after a document is re-indexed, search again.',
    rules: {
      id: { type: 'string', minLength: 1, maxLength: 20, description: 'An id returned by search' },
    },
  },
  'compare-document-revisions': {
    file: 'compare-document-revisions.graphql',
    title: 'Compare two revisions of a document',
    description:
      'Shows what changed between two revisions of a document (a new price list, a revised deposit structure or incentive sheet), page by page: lines removed and added, and for lines that differ only in their numbers each number as before and after ("$1,249,900" to "$1,279,900"; "5%" to "10%"). Each side cites its document, page and text hash. Give a document_id alone to compare it with the revision it replaces, or two revisions of the same document. Elite plan (it reads older revisions). Long comparisons come in pages: pass meta.next_cursor as cursor.',
    rules: {
      document_id: idSchema(
        'A revision, from list-project-documents (include_historical true lists older ones)',
      ),
      other_document_id: {
        ...idSchema(
          'Another revision of the same document; omit to compare with the one document_id replaces',
        ),
        type: ['integer', 'null'],
      },
      cursor: {
        type: ['string', 'null'],
        maxLength: 64,
        description: 'meta.next_cursor of the previous call',
      },
      limit: rangeSchema(REVISION_CHANGES_LIMIT, 'Changes to return'),
    },
  },
};

/** Loads and validates every tool's operation and derives its schemas: once, at start-up. */
export function loadTools(schema: GraphQLSchema): Map<string, Tool> {
  const tools = new Map<string, Tool>();
  for (const [name, spec] of Object.entries(SPECS)) {
    const operation = loadOperation(schema, import.meta.dirname + '/tools', spec.file);
    const root = operation.definition.selectionSet.selections[0] as FieldNode;
    if (root.kind !== Kind.FIELD || root.alias?.value !== 'result') {
      throw new Error(`${spec.file}: the operation's one root field must be aliased "result"`);
    }
    tools.set(name, {
      operation,
      definition: {
        name,
        title: spec.title,
        description: spec.description,
        inputSchema: inputSchemaFrom(operation.definition.variableDefinitions ?? [], spec.rules),
        outputSchema: outputSchemaFrom(schema, root.name.value, root.selectionSet!),
        annotations: { readOnlyHint: true, openWorldHint: false, idempotentHint: true },
      },
    });
  }
  return tools;
}
