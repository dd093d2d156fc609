import type { EntityManager } from '@mikro-orm/postgresql';
import { createHash } from 'node:crypto';
import { escapeLiteral } from 'pg';
import { badInput } from '../../errors/catalogue.js';
import { onConnection, queryOn, statementTimeoutOf } from '../../db/native.js';
import {
  GENERATION_COLUMNS,
  generationsFor,
  noteGenerations,
  type GenerationRow,
} from '../../db/generation.js';
import type { QueryWords } from './query-forms.js';
import { keepAnswer, keptAnswer, knownSpellings, learnSpellings } from './search-cache.js';
import { withCompounds } from './spellings.js';

/**
 * Every search statement runs under this deadline (PostgreSQL cancels it), so one expensive query
 * cannot hold a connection and a core for long. Exact answers on 1M chunks take well under a
 * second; this only bounds the pathological.
 */
export const SEARCH_STATEMENT_TIMEOUT_MS = 10_000;

/** A statement as node-postgres takes it: named ones are parsed and planned once per connection. */
type Statement = { name?: string; text: string; values: unknown[] };

interface PoolClient {
  query: (statement: string | Statement) => Promise<{ rows: unknown[] }>;
  release: (err?: Error) => void;
}

interface ReadPool {
  connect: () => Promise<PoolClient>;
  query: (statement: Statement) => Promise<{ rows: unknown[] }>;
}

/**
 * A search's statement runner. `prepared` names the statement (by its text), so each connection
 * parses it once and PostgreSQL may keep one generic plan for it: for statements whose plan does
 * not depend on the parameters' values (the fenced project-scoped shapes of matchesSql). Planning
 * took most of a project-scoped search's server time.
 */
export type SearchQuery = <T>(sql: string, params: unknown[], prepared?: boolean) => Promise<T[]>;

const statementNames = new Map<string, string>();

function statement(text: string, values: unknown[], prepared = false): Statement {
  if (!prepared) return { text, values };
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `pds_search_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
    // The shapes are few (scope and path); the bound only guards against a future caller's variety.
    if (statementNames.size >= 256) statementNames.clear();
    statementNames.set(text, name);
  }
  return { name, text, values };
}

/**
 * A search's own reads: `query` runs its statements, `terms` are every spelling to search, `pool`
 * is the pool they run on, and `snapshot` is a select-list tail (empty, or `, <generation
 * columns>`) that the search's one corpus statement adds to its select list, so that the
 * generations it read come back with its rows.
 */
export type SearchWork<T> = (
  query: SearchQuery,
  terms: readonly string[],
  pool: object,
  snapshot: string,
) => Promise<T>;

/** A statement cancelled by its deadline: the caller can act on it (a narrower term or scope). */
function deadlineError(err: unknown): unknown {
  if ((err as { code?: string }).code !== '57014') return err;
  return badInput(
    'query',
    `took longer than ${SEARCH_STATEMENT_TIMEOUT_MS / 1000} s to search: use a more specific term or one project`,
  );
}

/**
 * Runs a search, exactly, in the cheapest way that stays exact:
 * - no round trip when its answer was kept under the request's own generations (read once per
 *   request after it arrived: src/search/query/search-cache.ts);
 * - one statement when the vocabulary's answer for its compound spellings is known at the
 *   request's search generation and the connection's own deadline (DB_STATEMENT_TIMEOUT_MS, the
 *   requests' pool's `statement_timeout`: src/db/orm.ts) is the search's: the statement reads the
 *   generations with its rows, and its answer stands only if they show the same vocabulary;
 * - otherwise (and when that check fails) three round trips in a read-only repeatable-read
 *   transaction (inTransaction).
 */
export async function readSnapshot<T>(
  em: EntityManager,
  words: QueryWords,
  key: string,
  work: SearchWork<T>,
): Promise<T> {
  const primary = await em.getConnection('write').getNativeClient();
  const requested = await generationsFor(em);
  const kept = keptAnswer(primary, requested, key) as T | undefined;
  if (kept !== undefined) return kept;
  const pool = (await em.getConnection('read').getNativeClient()) as ReadPool;
  const known = knownSpellings(primary, requested.search, words.candidates);
  if (known && statementTimeoutOf(pool) === SEARCH_STATEMENT_TIMEOUT_MS) {
    const terms = withCompounds(words.plain, known);
    const answer = await oneStatement(em, primary, pool, key, requested.search, terms, work);
    if (answer) return answer.value;
  }
  return inTransaction(em, primary, pool, words, key, work);
}

/**
 * The search as one statement on `pool` (no transaction: one statement is one snapshot), under the
 * connection's own deadline. Its answer is returned and kept when the snapshot's search
 * generation is `vocabularyGeneration`, the one the spellings were learned at; otherwise undefined,
 * and the caller searches again in a transaction.
 */
async function oneStatement<T>(
  em: EntityManager,
  primary: object,
  pool: ReadPool,
  key: string,
  vocabularyGeneration: string,
  terms: readonly string[],
  work: SearchWork<T>,
): Promise<{ value: T } | undefined> {
  let snapshot: GenerationRow | undefined;
  const query: SearchQuery = async <R>(sql: string, params: unknown[], prepared?: boolean) => {
    const { rows } = await queryOn(pool, statement(sql, params, prepared));
    const first = rows[0] as Partial<GenerationRow> | undefined;
    if (first?.search_generation !== undefined) snapshot = first as GenerationRow;
    return rows as R[];
  };
  let value: T;
  try {
    value = await work(query, terms, pool, `, ${GENERATION_COLUMNS}`);
  } catch (err) {
    throw deadlineError(err);
  }
  if (!snapshot) return undefined;
  const generation = await noteGenerations(em, snapshot);
  if (generation.search !== vocabularyGeneration) return undefined;
  keepAnswer(primary, generation, key, value);
  return { value };
}

/**
 * The search on one connection of `pool` (a read replica's when one is configured), in a read-only
 * repeatable-read transaction with the statement deadline set for it alone. The transaction's first
 * round trip also reads the search generations and looks the query's compound candidates up in the
 * index's vocabulary (one simple-protocol message: `begin`, `set local`, the two reads, the words as
 * escaped literals), so `work` gets every spelling to search (src/search/query/spellings.ts) and what the
 * vocabulary said is remembered for later searches at that generation: three round trips, this,
 * its one statement, `commit`; two when an answer was kept under the snapshot's generations.
 */
async function inTransaction<T>(
  em: EntityManager,
  primary: object,
  pool: ReadPool,
  { plain, candidates }: QueryWords,
  key: string,
  work: SearchWork<T>,
): Promise<T> {
  try {
    return await onConnection(pool, async (client) => {
      const opened = (await client.query(
        `begin isolation level repeatable read read only; set local statement_timeout = ${SEARCH_STATEMENT_TIMEOUT_MS}; select ${GENERATION_COLUMNS}` +
          (candidates.length === 0
            ? ''
            : `; select word from search_vocabulary where word = any(array[${candidates.map(escapeLiteral).join(', ')}]::text[])`),
      )) as unknown as { rows: unknown[] }[];
      const generation = await noteGenerations(em, opened[2].rows[0] as GenerationRow);
      const known = new Set(
        candidates.length === 0 ? [] : (opened[3].rows as { word: string }[]).map((r) => r.word),
      );
      learnSpellings(primary, generation.search, candidates, known);
      // Kept since the request read its generations (a commit in between), or under a replica's.
      let result = keptAnswer(primary, generation, key) as T | undefined;
      if (result === undefined) {
        result = await work(
          async <R>(sql: string, params: unknown[], prepared?: boolean) =>
            (await client.query(statement(sql, params, prepared))).rows as R[],
          withCompounds(plain, known),
          pool,
          '',
        );
        keepAnswer(primary, generation, key, result);
      }
      await client.query('commit');
      return result;
    });
  } catch (err) {
    throw deadlineError(err);
  }
}
