import { createHmac, randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { hashSecret, safeEqual } from '../auth/secret.js';
import type { UserView, Viewer } from '../auth/viewer.js';
import { UserSessionSchema } from './session.entity.js';
import { AppError } from '../errors/catalogue.js';
import { membershipsOf } from './user.service.js';

/** Sessions last a working day; signing in again starts a new one. */
export const SESSION_TTL_SECONDS = 12 * 60 * 60;
const LAST_SEEN_RESOLUTION_MS = 60_000;
/** 32 random bytes, base64url: the only shape a session secret can have. */
const SESSION_SECRET_RE = /^[A-Za-z0-9_-]{43}$/;

export interface ActiveSession {
  id: number;
  user: UserView;
  expiresAt: Date;
}

export async function createSession(
  em: EntityManager,
  userId: number,
  now = new Date(),
): Promise<{ secret: string; expiresAt: Date }> {
  const secret = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + SESSION_TTL_SECONDS * 1000);
  // Sessions that were never signed out would pile up; sign-in is a rare enough moment to sweep.
  await em.nativeDelete(UserSessionSchema, { expiresAt: { $lt: now } });
  em.create(UserSessionSchema, { user: userId, secretHash: hashSecret(secret), expiresAt });
  await em.flush();
  return { secret, expiresAt };
}

export async function endSession(em: EntityManager, secret: string): Promise<void> {
  if (!SESSION_SECRET_RE.test(secret)) return;
  await em.nativeDelete(UserSessionSchema, { secretHash: hashSecret(secret) });
}

/** The live session for a cookie value, or null (malformed, unknown, expired). Read on every request. */
export async function findSession(
  em: EntityManager,
  secret: string | undefined,
  now = new Date(),
): Promise<ActiveSession | null> {
  if (!secret || !SESSION_SECRET_RE.test(secret)) return null;
  const hash = hashSecret(secret);
  const row = await em.findOne(UserSessionSchema, { secretHash: hash }, { populate: ['user'] });
  if (!row || !safeEqual(row.secretHash, hash)) return null;
  if (row.expiresAt.getTime() <= now.getTime()) {
    await em.nativeDelete(UserSessionSchema, { id: row.id });
    return null;
  }
  if (!row.lastSeenAt || now.getTime() - row.lastSeenAt.getTime() >= LAST_SEEN_RESOLUTION_MS) {
    await em.nativeUpdate(UserSessionSchema, { id: row.id }, { lastSeenAt: now });
  }
  return {
    id: row.id,
    user: { id: row.user.id, email: row.user.email, name: row.user.name },
    expiresAt: row.expiresAt,
  };
}

/**
 * A form token bound to the session and to what the form is for: a page on another site cannot
 * read it, and it is useless with another session or for another purpose.
 */
export function formToken(sessionSecret: string, purpose: string): string {
  return createHmac('sha256', sessionSecret).update(purpose).digest('base64url');
}

export function checkFormToken(sessionSecret: string, purpose: string, given: unknown): boolean {
  return typeof given === 'string' && safeEqual(given, formToken(sessionSecret, purpose));
}

/**
 * A session as a GraphQL viewer. It acts as the user in one team: the one named by `X-Team-Id`
 * (which must be one of theirs), else their only team; with several teams and no header the
 * viewer has no team, so team-scoped operations answer FORBIDDEN.
 */
export async function authenticateSession(
  em: EntityManager,
  secret: string,
  teamHint: string | undefined,
  now = new Date(),
): Promise<Viewer> {
  const session = await findSession(em, secret, now);
  if (!session) {
    throw new AppError('CREDENTIAL_INVALID', 'The session has expired or was signed out: sign in again');
  }
  const memberships = await membershipsOf(em, session.user.id);
  let chosen = memberships.length === 1 ? memberships[0] : null;
  if (teamHint !== undefined && teamHint !== '') {
    chosen = memberships.find((m) => String(m.team.id) === teamHint.trim()) ?? null;
    if (!chosen) throw new AppError('FORBIDDEN', `You are not a member of team ${teamHint.slice(0, 40)}`);
  }
  return {
    credential: { kind: 'session', id: session.id, rateKey: `user:${session.user.id}`, resource: null },
    team: chosen?.team ?? null,
    user: session.user,
    role: chosen?.role ?? null,
    scopes: [],
    isOperator: false,
  };
}
