/**
 * The spec's limits and defaults, each defined once: resolvers and services enforce them, the
 * MCP input schemas, the REST validation and the descriptions are built from them.
 */
export interface IntRange {
  readonly min: number;
  readonly max: number;
  readonly default: number;
}

/** search-document-text `limit`. */
export const SEARCH_LIMIT: IntRange = { min: 1, max: 25, default: 10 };
/** find-projects-mentioning `limit`. */
export const PROJECTS_MENTIONING_LIMIT: IntRange = { min: 1, max: 50, default: 25 };
/** fetch-document-context `before` and `after`. */
export const CONTEXT_WINDOW: IntRange = { min: 0, max: 5, default: 1 };
/** list-projects paging (ours: the spec names `page` only). */
export const PROJECT_PAGE: IntRange = { min: 1, max: 100_000, default: 1 };
export const PROJECTS_PER_PAGE: IntRange = { min: 1, max: 50, default: 20 };
/**
 * list-projects `per_page` on MCP: 25 projects with every text field at its longest stay under an AI
 * client's 100 KB tool-result budget, 50 do not (test/e2e/ai-clients/budgets.test.ts).
 */
export const MCP_PROJECTS_PER_PAGE: IntRange = { ...PROJECTS_PER_PAGE, max: 25 };
/**
 * Documents in one answer of list-project-documents: a project's whole inventory until it is
 * larger, then pages of this many with a cursor. At their longest (300-character names) 40 keep
 * the answer under a client's 100 KB budget (test/e2e/ai-clients/budgets.test.ts).
 */
export const PROJECT_DOCUMENTS_PAGE = 40;
/**
 * Documents per page of the document library (MCP `resources/list`): at their longest (300-character
 * names of 300 and 200-character project names, in two-byte letters) 40 keep the answer under a
 * client's 100 KB budget (test/e2e/ai-clients/budgets.test.ts).
 */
export const DOCUMENT_LIBRARY_PAGE = 40;
/**
 * Bytes one read of a document's text answers (MCP `resources/read`), counted as the text is
 * written in JSON (escapes included) plus DOCUMENT_PAGE_OVERHEAD_BYTES a page for what each page
 * carries besides its text: whole pages until the next would pass it, so the message stays under a
 * client's 100 KB budget however the text is made.
 */
export const DOCUMENT_TEXT_BUDGET_BYTES = 60_000;
/** What a page adds to a read besides its text (its uri, type, page link), at most. */
export const DOCUMENT_PAGE_OVERHEAD_BYTES = 300;
/** Pages one read of a document's text considers at most. */
export const DOCUMENT_TEXT_MAX_PAGES = 200;
/** Listings in one Floor Plan Match request. */
export const MAX_LISTINGS = 100;
/**
 * Entity ids on every surface (GraphQL `Int`, MCP and REST numbers): 1 to 2^31-1, the range of a
 * GraphQL Int and of the tables' integer keys. One rule for every entry point.
 */
export const ENTITY_ID = { min: 1, max: 2_147_483_647 } as const;

/** The words every refusal of an id uses. */
export const ENTITY_ID_RULE = `must be an integer id from ${ENTITY_ID.min} to ${ENTITY_ID.max}`;

/** An id as a JSON Schema integer (MCP input schemas, OpenAPI path parameters). */
export function idSchema(description?: string): Record<string, unknown> {
  return {
    type: 'integer',
    minimum: ENTITY_ID.min,
    maximum: ENTITY_ID.max,
    ...(description ? { description } : {}),
  };
}

/** An id given as text (a path segment, a form field): decimal digits within ENTITY_ID, else null. */
export function idFromText(text: string): number | null {
  if (!/^[0-9]{1,10}$/.test(text)) return null;
  const n = Number(text);
  return n >= ENTITY_ID.min && n <= ENTITY_ID.max ? n : null;
}

/** Characters in a search query or a text filter. */
export const MAX_QUERY_LENGTH = 200;

/** "1 to 25, default 10": the words every description uses. */
export function describeRange(range: IntRange): string {
  return `${range.min} to ${range.max}, default ${range.default}`;
}

/** The JSON Schema of an integer argument within the range. */
export function rangeSchema(range: IntRange, description?: string): Record<string, unknown> {
  return {
    type: 'integer',
    minimum: range.min,
    maximum: range.max,
    default: range.default,
    description: description ? `${description} (${describeRange(range)})` : describeRange(range),
  };
}
/** compare-document-revisions `limit`: changes a page returns; 25 changes of two 300-character quotes stay under a client's 100 KB budget. */
export const REVISION_CHANGES_LIMIT: IntRange = { min: 1, max: 25, default: 20 };
/** changes `first`: events a page of the change feed returns. */
export const CHANGES_LIMIT: IntRange = { min: 1, max: 200, default: 50 };
/** webhookDeliveries `first`: log rows a page returns. */
export const WEBHOOK_DELIVERIES_LIMIT: IntRange = { min: 1, max: 100, default: 25 };
/**
 * Active API keys per team, counted as rate-limit windows: a rolled key shares the window of the
 * key it replaced, so a roll never counts twice. The spec's limits are per key; this ceiling stops
 * them multiplying without bound (docs/security.md).
 */
export const MAX_ACTIVE_API_KEYS_PER_TEAM = 25;
/** Active personal MCP access tokens per team (each has its own 300-a-minute window). */
export const MAX_ACTIVE_PERSONAL_TOKENS_PER_TEAM = 100;
