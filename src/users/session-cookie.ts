import '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from '../config.js';

type CookieConfig = Pick<AppConfig, 'publicBaseUrl'>;

function isSecure(config: CookieConfig): boolean {
  return config.publicBaseUrl.startsWith('https:');
}

/**
 * Over HTTPS the cookie takes the `__Host-` prefix, which browsers accept only with Secure, Path=/
 * and no Domain: a sibling subdomain cannot plant or overwrite it. Plain HTTP (local development)
 * cannot use the prefix.
 */
export function sessionCookieName(config: CookieConfig): string {
  return isSecure(config) ? '__Host-pds_session' : 'pds_session';
}

export function readSessionCookie(request: FastifyRequest, config: CookieConfig): string | undefined {
  return request.cookies?.[sessionCookieName(config)];
}

export function setSessionCookie(
  reply: FastifyReply,
  config: CookieConfig,
  secret: string,
  expiresAt: Date,
): void {
  void reply.setCookie(sessionCookieName(config), secret, {
    path: '/',
    httpOnly: true,
    secure: isSecure(config),
    sameSite: 'lax',
    expires: expiresAt,
  });
}

export function clearSessionCookie(reply: FastifyReply, config: CookieConfig): void {
  void reply.clearCookie(sessionCookieName(config), {
    path: '/',
    httpOnly: true,
    secure: isSecure(config),
    sameSite: 'lax',
  });
}
