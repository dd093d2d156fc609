import type { RequestContext } from '../context/context.js';

/** Where a document's PDF is served (facades/rest/pdf.routes.ts). */
export const DOCUMENT_PDF_PATH = '/documents/:documentId/pdf';

/**
 * The address a person opens to check a citation: the document's PDF at its page (`#page=N`, which
 * browsers' PDF viewers honour). It carries no secret: the PDF is served only to a signed-in member
 * (or a credential) of a team whose plan may see the document, and `team` names the team the
 * answer was given for, so a member of several teams is checked against that one.
 */
export function documentPageUrl(
  ctx: Pick<RequestContext, 'viewer' | 'deps'>,
  documentId: number,
  page?: number,
): string {
  const team = ctx.viewer?.team?.id;
  const path = DOCUMENT_PDF_PATH.replace(':documentId', String(documentId));
  return `${ctx.deps.config.publicBaseUrl}${path}${team === undefined ? '' : `?team=${team}`}${page === undefined ? '' : `#page=${page}`}`;
}

/** A hit's heading, for clients that list results by title. */
export function hitTitle(hit: { documentName: string; projectName: string; pageNumber: number }): string {
  return `${hit.documentName} (${hit.projectName}), page ${hit.pageNumber}`;
}
