import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requireOperator } from '../../src/auth/entitlements.js';
import { createContext, type AppDeps, type RequestContext } from '../../src/context/context.js';
import { AppError } from '../../src/errors/catalogue.js';
import { unavailableError } from '../../src/db/availability.js';
import { sendRestError } from '../../src/http/rest-errors.js';

export const UPLOAD_PATH = '/admin/projects/:projectId/documents';

interface UploadQuery {
  category?: string;
  name?: string;
  type?: string;
  supersedes?: string;
}

/**
 * The operator's upload of a PDF of any size up to MAX_UPLOAD_BYTES, as the raw request body:
 *
 *   PUT /admin/projects/{projectId}/documents?category=price-list&name=prices.pdf[&type=…][&supersedes={documentId}]
 *   Content-Type: application/pdf
 *
 * Checks, in order, before the body is read: credential (401) and operator (403) through the one
 * context, exactly as the `uploadDocument` mutation; then the content type (415) and the declared
 * size (413). The body is read as bytes (no base64, no JSON) and stops at the limit; then the
 * same store-and-queue as the mutation and the `ingest` CLI (`deps.ingestion.upload`, lent by the
 * ingestion feature: a transport route reaches a feature through the deps, not by importing it).
 * 201 for a new document, 200 when the same bytes were already stored for the project.
 */
export async function registerUploadRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const max = deps.config.maxUploadBytes;
  const contexts = new WeakMap<FastifyRequest, RequestContext>();
  await app.register((scope, _opts, done) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('application/pdf', { parseAs: 'buffer', bodyLimit: max }, (_req, body, next) =>
      next(null, body),
    );
    scope.setErrorHandler((err: { statusCode?: number; message: string; code?: string }, request, reply) => {
      if (err instanceof AppError) return sendRestError(reply, err);
      if (err.statusCode === 413) {
        return reply.code(413).send({
          message: `The PDF is larger than the ${max}-byte upload limit (MAX_UPLOAD_BYTES)`,
          limit: max,
        });
      }
      if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || err.code === 'FST_ERR_CTP_EMPTY_TYPE') {
        return reply
          .code(415)
          .send({ message: 'Send the PDF as the request body with Content-Type: application/pdf' });
      }
      if (err.statusCode && err.statusCode < 500)
        return reply.code(err.statusCode).send({ message: err.message });
      // The database or the queue could not answer (the stored document is queued by the reconciler).
      const unavailable = unavailableError(err, deps.config.overload.retryAfterSeconds);
      if (unavailable) return sendRestError(reply, unavailable);
      deps.log.error({ err, requestId: request.id }, 'upload failed');
      return sendRestError(reply, new AppError('INTERNAL'));
    });
    // Authentication before the body: a caller who may not upload never gets to send 50 MB.
    scope.addHook('onRequest', async (request) => {
      const ctx = await createContext(
        {
          transport: 'rest',
          authorization: request.headers.authorization,
          ip: request.ip,
          requestId: request.id,
          signal: request.workSignal,
        },
        deps,
      );
      requireOperator(ctx.viewer);
      contexts.set(request, ctx);
    });
    scope.put<{ Params: { projectId: string }; Querystring: UploadQuery; Body: Buffer }>(
      UPLOAD_PATH,
      async (request, reply: FastifyReply) => {
        const ctx = contexts.get(request)!;
        const q = request.query;
        const outcome = await deps.ingestion.upload(
          ctx.em,
          {
            projectId: /^\d{1,9}$/.test(request.params.projectId) ? Number(request.params.projectId) : 0,
            category: q.category ?? '',
            name: q.name ?? '',
            type: q.type ?? null,
            content: request.body ?? new Uint8Array(0),
            contentField: 'body',
            supersedesDocumentId: q.supersedes === undefined ? null : Number(q.supersedes),
          },
          max,
        );
        return reply.code(outcome.duplicate ? 200 : 201).send({
          documentId: outcome.document.id,
          extractionId: outcome.extractionId,
          duplicate: outcome.duplicate,
        });
      },
    );
    done();
  });
}
