import type { Category } from '../enums.js';

/** Which documents a read covers: one project or all, one category or all, latest or every revision. */
export interface Scope {
  projectId?: number | null;
  category?: Category | null;
  /** Include older revisions: only when the plan allows it and the caller asked. */
  historical: boolean;
}

/** SQL predicate on `d` (document) for a scope, with its parameters from `$first`. */
export function scopeSql(scope: Scope, first: number): { sql: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  if (scope.projectId) {
    params.push(scope.projectId);
    parts.push(`d.project_id = $${first + params.length - 1}`);
  }
  if (scope.category) {
    params.push(scope.category);
    parts.push(`d.category = $${first + params.length - 1}`);
  }
  if (!scope.historical) parts.push('d.is_latest');
  return { sql: parts.length ? parts.join(' and ') : 'true', params };
}
