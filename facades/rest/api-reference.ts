import { createHash } from 'node:crypto';
import scalarApiReference from '@scalar/fastify-api-reference';
import type { FastifyInstance } from 'fastify';

/** Where the interactive reference is served, and the OpenAPI document it renders. */
export const API_REFERENCE_PATH = '/api/v1/docs';
const OPENAPI_URL = '/api/v1/openapi.json';

/** The SHA-256 CSP source of each inline script in a page, so exactly those scripts may run. */
function inlineScriptHashes(html: string): string[] {
  return [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map(
    (m) => `'sha256-${createHash('sha256').update(m[1], 'utf8').digest('base64')}'`,
  );
}

/**
 * The interactive Fusion API reference at /api/v1/docs, rendered in the browser by Scalar
 * (`@scalar/fastify-api-reference`, a maintained renderer whose Fastify plugin serves its bundle
 * from node_modules, so nothing is fetched from a CDN). It reads the same OpenAPI document the
 * service serves at /api/v1/openapi.json, however that is produced.
 *
 * The strict Content-Security-Policy is kept: scripts only from this origin plus the page's own
 * inline configuration script, allowed by its hash (computed from the page as sent, so a new
 * Scalar version cannot slip another one in); requests only to this origin; no fonts from
 * elsewhere; never framed. Scalar injects its stylesheet at run time, so styles may be inline,
 * as on the sign-in pages.
 */
export async function registerApiReference(app: FastifyInstance): Promise<void> {
  await app.register(async (scope) => {
    scope.addHook('onSend', async (_request, reply, payload) => {
      const type = String(reply.getHeader('content-type') ?? '');
      const scripts =
        typeof payload === 'string' && type.startsWith('text/html') ? inlineScriptHashes(payload) : [];
      reply
        .header(
          'content-security-policy',
          [
            "default-src 'none'",
            `script-src 'self' ${scripts.join(' ')}`.trim(),
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data:",
            "font-src 'self' data:",
            "connect-src 'self'",
            "base-uri 'none'",
            "form-action 'none'",
            "frame-ancestors 'none'",
          ].join('; '),
        )
        .header('x-frame-options', 'DENY')
        .header('x-content-type-options', 'nosniff')
        .header('referrer-policy', 'no-referrer');
      return payload;
    });
    await scope.register(scalarApiReference, {
      routePrefix: API_REFERENCE_PATH,
      configuration: {
        url: OPENAPI_URL,
        pageTitle: 'Property Data Service: Fusion APIs',
        withDefaultFonts: false,
        hideClientButton: true,
        telemetry: false,
        agent: { disabled: true },
      },
      logLevel: 'warn',
    });
  });
}
