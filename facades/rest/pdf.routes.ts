import { create as contentDisposition } from 'content-disposition';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { combineRanges, parse as parseRange } from 'range-parser';
import { requireDocumentIntelligence } from '../../src/auth/entitlements.js';
import { createContext, type AppDeps } from '../../src/context/context.js';
import { AppError } from '../../src/errors/catalogue.js';
import { unavailableError } from '../../src/db/availability.js';
import { sendRestError } from '../../src/http/rest-errors.js';

/** How long a browser may reuse a PDF without asking again (it is revalidated by its ETag after). */
const PDF_MAX_AGE_SECONDS = 300;

interface PdfRequest {
  Params: { documentId: string };
  Querystring: { team?: string };
}

function wantsPage(request: FastifyRequest): boolean {
  return /\btext\/html\b/.test(request.headers.accept ?? '');
}

/**
 * The PDF behind a citation's url, for a person to open: GET /documents/{id}/pdf[?team={teamId}].
 *
 * Who may open it goes through the one context: a signed-in member's session cookie (a browser;
 * `team` picks the team when the member has several) or a bearer credential GraphQL accepts; the
 * team's plan must allow Document Intelligence, and an older revision needs Elite. A browser that is
 * not signed in is sent to the sign-in page and back.
 *
 * The bytes live in the database, so @fastify/send and @fastify/static (which serve files from a
 * directory) do not apply: the headers they would set are set here, with range-parser (the parser
 * `send` uses) for Range and content-disposition for the file name. The answer is private (it
 * depends on who asks), revalidated by its strong ETag (the content's SHA-256), and a Range
 * request reads only its bytes from the database. The documents feature lends the reads and the
 * path (`deps.documentPdfs`, src/documents/pdf.ts), the users feature the sign-in page
 * (`deps.auth.signInPath`).
 */
export async function registerPdfRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  await app.register((scope, _opts, done) => {
    scope.setErrorHandler((err: { statusCode?: number; message: string }, request, reply) => {
      if (err instanceof AppError) return sendRestError(reply, err);
      const unavailable = unavailableError(err, deps.config.overload.retryAfterSeconds);
      if (unavailable) return sendRestError(reply, unavailable);
      if (err.statusCode && err.statusCode < 500)
        return reply.code(err.statusCode).send({ message: err.message });
      deps.log.error({ err, requestId: request.id }, 'pdf failed');
      return sendRestError(reply, new AppError('INTERNAL'));
    });
    scope.get<PdfRequest>(deps.documentPdfs.path, async (request, reply: FastifyReply) => {
      const session = deps.auth.sessionCookie(request);
      if (!request.headers.authorization && !session && wantsPage(request)) {
        return reply.redirect(`${deps.auth.signInPath}?next=${encodeURIComponent(request.url)}`, 303);
      }
      const ctx = await createContext(
        {
          transport: 'graphql',
          authorization: request.headers.authorization,
          session,
          teamId: typeof request.query.team === 'string' ? request.query.team : undefined,
          ip: request.ip,
          requestId: request.id,
          signal: request.workSignal,
        },
        deps,
      );
      const access = requireDocumentIntelligence(ctx.viewer);
      const id = Number(request.params.documentId);
      if (!/^[1-9]\d{0,9}$/.test(request.params.documentId) || id > 2147483647) {
        throw new AppError('NOT_FOUND', `document ${request.params.documentId.slice(0, 20)} not found`);
      }
      const pdf = await deps.documentPdfs.find(ctx.em, access, id);
      const etag = `"${pdf.contentHash}"`;
      void reply
        .header('content-type', 'application/pdf')
        .header('content-disposition', contentDisposition(pdf.name, { type: 'inline' }))
        .header('cache-control', `private, max-age=${PDF_MAX_AGE_SECONDS}`)
        .header('vary', 'Cookie, Authorization')
        .header('etag', etag)
        .header('last-modified', pdf.createdAt.toUTCString())
        .header('accept-ranges', 'bytes')
        .header('x-content-type-options', 'nosniff');
      const ifNoneMatch = request.headers['if-none-match'];
      if (ifNoneMatch && ifNoneMatch.split(',').some((t) => t.trim().replace(/^W\//, '') === etag)) {
        return reply.code(304).send();
      }
      const rangeHeader = request.headers.range;
      const ifRange = request.headers['if-range'];
      if (rangeHeader && (!ifRange || ifRange === etag)) {
        const parsed = parseRange(pdf.byteSize, rangeHeader);
        if (parsed.type === 'bytes' && parsed.ranges.length === 0 && parsed.code & 2) {
          return reply.code(416).header('content-range', `bytes */${pdf.byteSize}`).send();
        }
        // One range is answered as such; several (multipart/byteranges) and malformed ones get the whole PDF.
        const ranges = parsed.type === 'bytes' ? combineRanges(parsed.ranges) : [];
        if (ranges.length === 1) {
          const { start, end } = ranges[0];
          const part = await deps.documentPdfs.read(ctx.em, id, start, end);
          return reply
            .code(206)
            .header('content-range', `bytes ${start}-${end}/${pdf.byteSize}`)
            .header('content-length', part.length)
            .send(part);
        }
      }
      const body = await deps.documentPdfs.read(ctx.em, id, 0, pdf.byteSize - 1);
      return reply.header('content-length', body.length).send(body);
    });
    done();
  });
}
