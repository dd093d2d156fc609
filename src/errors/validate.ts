import { CATEGORIES, type Category } from '../enums.js';
import { badInput } from './catalogue.js';
import { ENTITY_ID, ENTITY_ID_RULE, idFromText, type IntRange } from '../limits.js';

/** Input checks shared by services: each failure is a BAD_USER_INPUT naming the field. */
export function parseId(field: string, value: string | number | null | undefined): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? idFromText(value) : null;
  if (n === null || !Number.isInteger(n) || n < ENTITY_ID.min || n > ENTITY_ID.max)
    throw badInput(field, ENTITY_ID_RULE);
  return n;
}

export function requireText(field: string, value: string | null | undefined, max = 200): string {
  const v = (value ?? '').trim();
  if (!v) throw badInput(field, 'must not be empty');
  if (v.length > max) throw badInput(field, `must be at most ${max} characters`);
  return v;
}

export function optionalText(field: string, value: string | null | undefined, max = 300): string | null {
  if (value === null || value === undefined) return null;
  const v = value.trim();
  if (v.length > max) throw badInput(field, `must be at most ${max} characters`);
  return v || null;
}

export function requireOneOf<T extends string>(field: string, values: readonly T[], value: unknown): T {
  if (typeof value === 'string' && (values as readonly string[]).includes(value)) return value as T;
  throw badInput(field, `must be one of: ${values.join(', ')}`);
}

export function optionalOneOf<T extends string>(
  field: string,
  values: readonly T[],
  value: unknown,
): T | null {
  if (value === null || value === undefined) return null;
  return requireOneOf(field, values, value);
}

export function optionalInt(
  field: string,
  value: number | null | undefined,
  min: number,
  max: number,
): number | null {
  if (value === null || value === undefined) return null;
  if (!Number.isInteger(value) || value < min || value > max)
    throw badInput(field, `must be an integer from ${min} to ${max}`);
  return value;
}

export function optionalFutureDate(
  field: string,
  value: Date | null | undefined,
  now = new Date(),
): Date | null {
  if (value === null || value === undefined) return null;
  if (Number.isNaN(value.getTime())) throw badInput(field, 'must be a valid date-time');
  if (value.getTime() <= now.getTime()) throw badInput(field, 'must be in the future');
  return value;
}

export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 180);
}

/** A document category (the spec's eight), or null when not given. */
export function validateCategory(category: string | null | undefined): Category | null {
  if (category === null || category === undefined) return null;
  if (!(CATEGORIES as readonly string[]).includes(category)) {
    throw badInput('category', `must be one of: ${CATEGORIES.join(', ')}`);
  }
  return category as Category;
}

/** An integer within a documented range; its default when not given. */
export function validateRange(field: string, value: number | null | undefined, range: IntRange): number {
  if (value === null || value === undefined) return range.default;
  if (!Number.isInteger(value) || value < range.min || value > range.max)
    throw badInput(field, `must be an integer from ${range.min} to ${range.max}`);
  return value;
}
