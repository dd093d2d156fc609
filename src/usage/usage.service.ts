import type { EntityManager } from '@mikro-orm/postgresql';
import { apiKeyRateKey } from '../auth/authenticate.js';
import type { RateLimiter, RatePolicyName } from '../auth/rate-limit.js';
import { nativeQuery } from '../db/native.js';
import { FUSION_SCOPES } from '../enums.js';
import { optionalInt, parseId } from '../errors/validate.js';
import type { UsageKind } from './usage.counter.js';

/** How far back the usage figures go by default, and at most. */
export const USAGE_DAYS = 30;

export interface CredentialUsageView {
  kind: UsageKind;
  id: number;
  name: string;
  prefix: string;
  /** For tokens: personal or oauth (a connected client's). */
  tokenKind: string | null;
  total: number;
  /** Requests per day, oldest first, one entry for each day of the period (zeros included). */
  daily: number[];
}

export interface KeyWindowView {
  apiKeyId: number;
  apiKeyName: string;
  scope: string;
  limit: number;
  remaining: number;
  /** Seconds until the window resets; null when no window is open (the full limit is left). */
  resetSeconds: number | null;
}

export interface TeamUsageView {
  /** The period's days, oldest first (YYYY-MM-DD, UTC). */
  days: string[];
  /** Every counted credential's requests per day, summed. */
  totals: number[];
  credentials: CredentialUsageView[];
  /** Each active key's current window per Fusion scope it carries. */
  windows: KeyWindowView[];
}

const DAY_MS = 24 * 60 * 60 * 1000;

interface UsageRow {
  kind: UsageKind;
  id: number;
  name: string | null;
  prefix: string | null;
  token_kind: string | null;
  day: string;
  requests: string;
}

/**
 * Requests per key and token per day, as written by the counter (src/usage/usage.counter.ts): the
 * figures lag the requests by at most one write interval. The pages and GraphQL both read here.
 */
export async function teamUsage(
  em: EntityManager,
  limiter: RateLimiter,
  teamIdInput: number,
  daysInput: number | null | undefined,
  now: Date,
): Promise<TeamUsageView> {
  const teamId = parseId('teamId', teamIdInput);
  const count = optionalInt('days', daysInput, 1, USAGE_DAYS) ?? USAGE_DAYS;
  const today = Math.floor(now.getTime() / DAY_MS);
  const days = Array.from({ length: count }, (_, i) =>
    new Date((today - count + 1 + i) * DAY_MS).toISOString().slice(0, 10),
  );
  const query = await nativeQuery(em);
  const rows = await query<UsageRow>(
    `select u.credential_kind as kind, u.credential_id as id, to_char(u.day, 'YYYY-MM-DD') as day,
            u.requests::text as requests, coalesce(k.name, a.name) as name, coalesce(k.prefix, a.prefix) as prefix,
            a.kind as token_kind
       from credential_usage_day u
       left join api_key k on u.credential_kind = 'api-key' and k.id = u.credential_id
       left join access_token a on u.credential_kind = 'access-token' and a.id = u.credential_id
      where u.team_id = $1 and u.day >= $2::date
      order by u.credential_kind, u.credential_id`,
    [teamId, days[0]],
  );
  const index = new Map(days.map((d, i) => [d, i]));
  const byCredential = new Map<string, CredentialUsageView>();
  const totals = days.map(() => 0);
  for (const row of rows) {
    const at = index.get(row.day);
    if (at === undefined) continue;
    const key = `${row.kind}:${row.id}`;
    let entry = byCredential.get(key);
    if (!entry) {
      entry = {
        kind: row.kind,
        id: row.id,
        // A connector's expired access tokens are deleted after a day; their counts stay.
        name: row.name ?? (row.kind === 'api-key' ? `Deleted key ${row.id}` : `Expired token ${row.id}`),
        prefix: row.prefix ?? '',
        tokenKind: row.token_kind,
        total: 0,
        daily: days.map(() => 0),
      };
      byCredential.set(key, entry);
    }
    const n = Number(row.requests);
    entry.daily[at] += n;
    entry.total += n;
    totals[at] += n;
  }
  const credentials = [...byCredential.values()].sort((a, b) => b.total - a.total || a.id - b.id);
  return { days, totals, credentials, windows: await keyWindows(em, limiter, teamId, now) };
}

async function keyWindows(
  em: EntityManager,
  limiter: RateLimiter,
  teamId: number,
  now: Date,
): Promise<KeyWindowView[]> {
  const query = await nativeQuery(em);
  const keys = await query<{ id: number; name: string; scopes: string[]; window_key_id: number }>(
    `select id, name, scopes, coalesce(window_key_id, id) as window_key_id from api_key
      where team_id = $1 and revoked_at is null and (expires_at is null or expires_at > $2)
      order by id`,
    [teamId, now],
  );
  const windows: KeyWindowView[] = [];
  for (const key of keys) {
    for (const scope of FUSION_SCOPES.filter((s) => key.scopes.includes(s))) {
      const policy: RatePolicyName = scope;
      windows.push({
        apiKeyId: key.id,
        apiKeyName: key.name,
        scope,
        ...(await limiter.peek(policy, apiKeyRateKey(key.window_key_id))),
      });
    }
  }
  return windows;
}
