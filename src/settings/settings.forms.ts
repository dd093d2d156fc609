import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { nativeQuery } from '../db/native.js';
import { SESSION_TTL_SECONDS, checkFormToken, formToken } from '../users/session.service.js';

/**
 * Every settings form carries a one-time id and a token bound to the session, the team and that id:
 * a page on another site cannot read it, and a form submitted twice (a double click, a reload of
 * the answer, the back button) is recognised and changes nothing the second time. The ids used are
 * kept for as long as a session lives, in PostgreSQL, so any app node recognises them.
 */
export interface SettingsForm {
  nonce: string;
  token: string;
}

const NONCE_RE = /^[A-Za-z0-9_-]{22}$/;

const purpose = (teamId: number, nonce: string) => `settings:${teamId}:${nonce}`;

export function newSettingsForm(sessionSecret: string, teamId: number): SettingsForm {
  const nonce = randomBytes(16).toString('base64url');
  return { nonce, token: formToken(sessionSecret, purpose(teamId, nonce)) };
}

/** Whether the posted id and token were issued to this session for this team. */
export function checkSettingsForm(
  sessionSecret: string,
  teamId: number,
  nonce: string | undefined,
  token: string | undefined,
): nonce is string {
  return (
    typeof nonce === 'string' &&
    NONCE_RE.test(nonce) &&
    checkFormToken(sessionSecret, purpose(teamId, nonce), token)
  );
}

/** Marks a form id used; false when it was used already (the form was submitted before). */
export async function claimSettingsForm(em: EntityManager, nonce: string, now: Date): Promise<boolean> {
  const query = await nativeQuery(em);
  await query(`delete from settings_form_use where created_at < $1`, [
    new Date(now.getTime() - SESSION_TTL_SECONDS * 1000),
  ]);
  const rows = await query(
    `insert into settings_form_use (nonce, created_at) values ($1, $2) on conflict do nothing returning nonce`,
    [nonce, now],
  );
  return rows.length === 1;
}

/** Every value of a repeated form field (checkboxes); a single value reads as a list of one. */
export function formList(body: unknown, name: string): string[] {
  if (typeof body !== 'object' || body === null) return [];
  const value = (body as Record<string, unknown>)[name];
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
