import express, { type RequestHandler } from 'express';
import { UNSTORABLE_TEXT } from '../errors/text.js';
import { sameResource } from './urls.js';

/**
 * Checks an authorization request before the MCP SDK's handler sees it. Rules:
 * - A request that fails any check is answered here, 400 with an OAuth error body holding one
 *   sentence, and is never redirected: no user has interacted yet, so sending the browser to the
 *   client's redirect_uri would make this endpoint an open redirector (RFC 9700 §4.11.2). Errors
 *   after the user acted (consent denied) go back to the client with its `state`.
 * - Every parameter is given once, as text PostgreSQL can store.
 * - `response_type=code`, PKCE with `code_challenge_method=S256` and a 43-character challenge,
 *   `state` of at most 2,048 characters, `resource` (RFC 8707) naming the one protected resource.
 */
export interface AuthorizationRequestProblem {
  error: 'invalid_request' | 'unsupported_response_type' | 'invalid_target';
  description: string;
}

export const MAX_STATE_LENGTH = 2048;
const MAX_PARAM_LENGTH = 4096;
/** A S256 code challenge is the base64url SHA-256 of the verifier: exactly 43 characters. */
export const S256_CHALLENGE_RE = /^[A-Za-z0-9_-]{43}$/;

const invalid = (description: string): AuthorizationRequestProblem => ({
  error: 'invalid_request',
  description,
});

/** What is wrong with the request's parameters, or null when the SDK handler may take it. */
export function authorizationRequestProblem(
  params: unknown,
  mcpResource: string,
): AuthorizationRequestProblem | null {
  if (typeof params !== 'object' || params === null)
    return invalid('The authorization request has no parameters.');
  const p = params as Record<string, unknown>;
  for (const [name, value] of Object.entries(p)) {
    if (typeof value !== 'string')
      return invalid(`The parameter ${name.slice(0, 40)} must be given once, as text.`);
    if (UNSTORABLE_TEXT.test(value) || value.length > MAX_PARAM_LENGTH)
      return invalid(`The parameter ${name.slice(0, 40)} is not valid text or is too long.`);
  }
  const text = p as Record<string, string | undefined>;
  if (!text.client_id) return invalid('client_id is required.');
  if (text.redirect_uri !== undefined && !URL.canParse(text.redirect_uri))
    return invalid('redirect_uri is not a valid URL.');
  if (text.response_type !== 'code')
    return { error: 'unsupported_response_type', description: 'Only response_type=code is supported.' };
  if (!text.code_challenge) return invalid('code_challenge is required: this server needs PKCE with S256.');
  if (text.code_challenge_method !== 'S256')
    return invalid('code_challenge_method must be S256: plain PKCE is not accepted.');
  if (!S256_CHALLENGE_RE.test(text.code_challenge))
    return invalid('code_challenge must be a base64url-encoded SHA-256 digest of 43 characters.');
  if (text.state !== undefined && text.state.length > MAX_STATE_LENGTH)
    return invalid(`state must be at most ${MAX_STATE_LENGTH} characters.`);
  if (text.resource !== undefined && !sameResource(text.resource, mcpResource))
    return { error: 'invalid_target', description: `This server issues tokens only for ${mcpResource}.` };
  return null;
}

/** The check as Express middleware, mounted before the SDK's authorization handler. */
export function checkAuthorizationRequest(mcpResource: string): RequestHandler[] {
  return [
    express.urlencoded({ extended: false, limit: '64kb' }),
    (req, res, next) => {
      if (req.method !== 'GET' && req.method !== 'POST') {
        next();
        return;
      }
      const problem = authorizationRequestProblem(req.method === 'POST' ? req.body : req.query, mcpResource);
      if (!problem) {
        next();
        return;
      }
      res
        .status(400)
        .set('cache-control', 'no-store')
        .json({ error: problem.error, error_description: problem.description });
    },
  ];
}
