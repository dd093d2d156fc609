import type { FastifyInstance } from 'fastify';

/**
 * Query parameters that carry credentials. URLs end up in access logs, proxy logs, browser history
 * and Referer headers, so a secret there is leaked the moment it is sent: it is refused, and the
 * value is never logged.
 */
const CREDENTIAL_PARAMS = new Set([
  'api_key',
  'apikey',
  'api-key',
  'key',
  'access_token',
  'accesstoken',
  'refresh_token',
  'id_token',
  'token',
  'auth',
  'auth_token',
  'authorization',
  'bearer',
  'client_secret',
  'password',
  'secret',
]);

function credentialParams(url: string): string[] {
  const q = url.indexOf('?');
  if (q < 0) return [];
  const found: string[] = [];
  for (const name of new URLSearchParams(url.slice(q + 1)).keys()) {
    if (CREDENTIAL_PARAMS.has(name.toLowerCase())) found.push(name);
  }
  return found;
}

/** A secret of this service by its form (`pds_<kind>_…`), wherever it appears, percent-encoded or not. */
const SECRET_VALUE_RE = /pds(?:_|%5[Ff])[A-Za-z]+(?:_|%5[Ff])[A-Za-z0-9]{8,}/g;

/**
 * The URL as logged: credential parameters keep their name, never their value, and a secret of
 * this service is redacted by its value wherever it is (an unknown parameter, the path).
 */
export function redactUrl(url: string): string {
  return redactParams(url).replace(SECRET_VALUE_RE, '[redacted]');
}

function redactParams(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  let changed = false;
  for (const name of [...params.keys()]) {
    if (CREDENTIAL_PARAMS.has(name.toLowerCase())) {
      params.set(name, '[redacted]');
      changed = true;
    }
  }
  return changed ? `${url.slice(0, q)}?${params.toString()}` : url;
}

/** Refuses credentials in the query string with 400 before any route, context or body parsing runs. */
export function refuseQueryCredentials(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    const names = credentialParams(request.url);
    if (!names.length) return;
    request.log.warn({ params: names }, 'refused a credential sent in the query string');
    return reply
      .code(400)
      .header('cache-control', 'no-store')
      .send({
        message: `Credentials are not accepted in the URL (${names.join(', ')}): send them in the Authorization header (Authorization: Bearer <key>). A key sent in a URL may have been logged along the way; rotate it.`,
      });
  });
}
