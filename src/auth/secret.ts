import { hash, randomInt, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * Secret format: `pds_<kind>_<30 base62 random><6 base62 CRC32>`. 30 base62 characters carry 178
 * bits of entropy; the checksum lets a malformed or mistyped secret be refused without a database
 * read, and the prefix makes a leaked one easy to recognise in a scanner.
 */
export const SECRET_KINDS = {
  key: 'API key',
  mcp: 'MCP access token',
  oat: 'OAuth access token',
  ort: 'OAuth refresh token',
} as const;
export type SecretKind = keyof typeof SECRET_KINDS;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 30;
const CHECK_LENGTH = 6;
const SECRET_RE = /^pds_(key|mcp|oat|ort)_([0-9A-Za-z]{36})$/;

function toBase62(value: number, width: number): string {
  let out = '';
  let n = value;
  for (let i = 0; i < width; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

function checksum(kind: string, random: string): string {
  return toBase62(crc32(`pds_${kind}_${random}`), CHECK_LENGTH);
}

export function generateSecret(kind: SecretKind): string {
  let random = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) random += BASE62[randomInt(62)];
  return `pds_${kind}_${random}${checksum(kind, random)}`;
}

/** Returns the kind of a well-formed secret with a valid checksum, else null. Never touches storage. */
export function parseSecret(secret: string): SecretKind | null {
  const m = SECRET_RE.exec(secret);
  if (!m) return null;
  const kind = m[1] as SecretKind;
  const body = m[2];
  const random = body.slice(0, RANDOM_LENGTH);
  return equalDigests(body.slice(RANDOM_LENGTH), checksum(kind, random)) ? kind : null;
}

// crypto.hash, one call without a Hash object: 3-4 times cheaper than createHash for a secret's few
// bytes, and every request with a credential hashes four to six times (checksum, lookup, comparisons).
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** The part of a secret that may be shown again (in listings and logs): kind plus 4 characters. */
export function displayPrefix(secret: string): string {
  return secret.slice(0, 12);
}

/**
 * Constant-time equality of two strings whose length is no secret (SHA-256 hex digests, a secret's
 * checksum): their bytes are compared directly, without safeEqual's two hashes; a different byte
 * length answers false at once. A request's credential check makes one hash instead of seven.
 */
export function equalDigests(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Constant-time equality of two strings (compared as SHA-256 digests, so lengths leak nothing). */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(hash('sha256', a, 'buffer'), hash('sha256', b, 'buffer'));
}
