import { createHmac, createSecretKey, hash, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { Viewer } from '../auth/viewer.js';
import type { AppConfig } from '../config.js';
import { badInput } from '../errors/catalogue.js';

/**
 * Paging cursors: opaque tokens a caller hands back unchanged to get the next page. A cursor is
 * the page's position and what it is bound to (the operation, its arguments, the credential's team
 * and, for the document reads, the search generation it started on), signed with HMAC-SHA256 under
 * CURSOR_SECRET. Anything else — a forged or edited token, one issued to another team or for other
 * arguments, one whose documents were re-indexed since — is refused with a message that says what
 * to do; a cursor never widens what the caller may see (every page is read with the caller's own
 * plan and scope).
 */
export const CURSOR_DESCRIPTION =
  'The nextCursor of the previous page, unchanged, with the same other arguments; leave it out for the first page';

/** The words every paged answer's `nextCursor` carries. */
export const NEXT_CURSOR_DESCRIPTION =
  'Pass it as cursor, with the same other arguments, for the next page; null on the last page';

export type CursorKind = 'search' | 'find' | 'projects' | 'documents' | 'library';

interface Sealed {
  /** The operation. */
  k: CursorKind;
  /** The credential's team (or the operator). */
  t: string;
  /** SHA-256 of the arguments, so the cursor answers only the query that issued it. */
  a: string;
  /** The page's position, as the operation defines it. */
  p: unknown;
}

type CursorConfig = Pick<AppConfig, 'cursorSecret'>;

const processKey = createSecretKey(randomBytes(32));

/**
 * CURSOR_SECRET as a KeyObject, made once: given a raw key, createHmac prepares it again on every
 * call, which on Node 24 costs several times the MAC of a cursor (every paged answer issues one).
 */
let secret: { text: string; key: KeyObject } | null = null;

function keyOf(config: CursorConfig): KeyObject {
  if (!config.cursorSecret) return processKey;
  if (secret?.text !== config.cursorSecret) {
    secret = { text: config.cursorSecret, key: createSecretKey(Buffer.from(config.cursorSecret, 'utf8')) };
  }
  return secret.key;
}

function owner(viewer: Viewer | null): string {
  if (!viewer) return 'anonymous';
  if (viewer.isOperator) return 'operator';
  return viewer.team ? `team:${viewer.team.id}` : `user:${viewer.user?.id ?? viewer.credential.rateKey}`;
}

function argumentsHash(args: unknown): string {
  return hash('sha256', JSON.stringify(args), 'base64url').slice(0, 22);
}

function mac(config: CursorConfig, body: string): Buffer {
  return createHmac('sha256', keyOf(config)).update(body).digest();
}

/** Cursors are short; anything longer is not one of ours. */
const MAX_CURSOR_LENGTH = 1024;

export function issueCursor(
  config: CursorConfig,
  viewer: Viewer | null,
  kind: CursorKind,
  args: unknown,
  position: unknown,
): string {
  const sealed: Sealed = { k: kind, t: owner(viewer), a: argumentsHash(args), p: position };
  const body = Buffer.from(JSON.stringify(sealed), 'utf8').toString('base64url');
  return `${body}.${mac(config, body).toString('base64url')}`;
}

/**
 * The position a cursor holds, once it is shown to be ours, for this operation, these arguments
 * and this team; otherwise BAD_USER_INPUT on `cursor`, which the MCP facade answers as a tool error.
 */
export function readCursor<P>(
  config: CursorConfig,
  viewer: Viewer | null,
  kind: CursorKind,
  args: unknown,
  cursor: string,
): P {
  const [body, signature, extra] = cursor.length <= MAX_CURSOR_LENGTH ? cursor.split('.') : [];
  const given = signature === undefined ? null : Buffer.from(signature, 'base64url');
  const expected = body === undefined ? null : mac(config, body);
  if (
    extra !== undefined ||
    !given ||
    !expected ||
    given.length !== expected.length ||
    !timingSafeEqual(given, expected)
  ) {
    throw badInput(
      'cursor',
      'is not a cursor this server issued (or it has expired): pass next_cursor from the previous answer unchanged, or leave cursor out for the first page',
    );
  }
  const sealed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Sealed;
  if (sealed.t !== owner(viewer))
    throw badInput('cursor', 'was issued to another team: leave it out for the first page');
  if (sealed.k !== kind || sealed.a !== argumentsHash(args)) {
    throw badInput(
      'cursor',
      'belongs to another query: call again with exactly the arguments of the call that returned it, or leave cursor out for the first page',
    );
  }
  return sealed.p as P;
}

/** A document read's cursor whose corpus changed since it was issued. */
export function staleCursor(): Error {
  return badInput(
    'cursor',
    'is stale: documents were added, changed or re-indexed since the first page, so its pages would no longer line up; start again without a cursor',
  );
}
