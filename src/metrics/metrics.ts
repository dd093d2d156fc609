import type pg from 'pg';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The service's Prometheus figures (prom-client), served by /metrics (src/metrics/metrics.routes.ts).
 * One registry per process: every app built in it (tests build several) adds to the same families,
 * so a figure is read as a change between two scrapes, as Prometheus does.
 *
 * Others add their own through `metrics.counter/gauge/histogram`: asking twice for one name gives
 * the same family (the second definition must agree with the first).
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'pds_' });

function existing<T>(name: string): T | undefined {
  return registry.getSingleMetric(name) as T | undefined;
}

export const metrics = {
  counter<L extends string = string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    return existing<Counter<L>>(name) ?? new Counter<L>({ name, help, labelNames, registers: [registry] });
  },
  gauge<L extends string = string>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
    collect?: (this: Gauge<L>) => void | Promise<void>,
  ): Gauge<L> {
    return (
      existing<Gauge<L>>(name) ?? new Gauge<L>({ name, help, labelNames, collect, registers: [registry] })
    );
  },
  histogram<L extends string = string>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
    buckets: number[] = LATENCY_BUCKETS,
  ): Histogram<L> {
    return (
      existing<Histogram<L>>(name) ??
      new Histogram<L>({ name, help, labelNames, buckets, registers: [registry] })
    );
  },
};

/** Seconds, from a fast cached answer (~1 ms) to the default request deadline (15 s). */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15];

/** Seconds since `started` (a `performance.now()` reading). */
export function secondsSince(started: number): number {
  return (performance.now() - started) / 1000;
}

/** Requests by route (its pattern, never the raw URL), method and status; and their latency. */
export const httpRequests = metrics.counter(
  'pds_http_requests_total',
  'HTTP requests answered, by route pattern, method and status',
  ['route', 'method', 'status'],
);
export const httpDuration = metrics.histogram(
  'pds_http_request_duration_seconds',
  'Time from a request arriving to its answer being sent, by route pattern, method and status',
  ['route', 'method', 'status'],
);

/** MCP tools/call by tool and outcome (ok, tool-error, error), and their latency. */
export const toolCalls = metrics.counter(
  'pds_mcp_tool_calls_total',
  'MCP tools/call requests, by tool and outcome',
  ['tool', 'outcome'],
);
export const toolDuration = metrics.histogram(
  'pds_mcp_tool_duration_seconds',
  'MCP tools/call time, by tool',
  ['tool'],
);

/** Starts timing a tools/call of `tool`; the returned function records it with its outcome (ok, or the error's code). */
export function toolCallTimer(tool: string): (outcome: string) => void {
  const started = performance.now();
  return (outcome) => {
    toolCalls.inc({ tool, outcome });
    toolDuration.observe({ tool }, secondsSince(started));
  };
}

/** Requests refused by a rate-limit policy (every policy of src/auth/rate-limit.ts). */
export const rateLimitRefusals = metrics.counter(
  'pds_rate_limit_refusals_total',
  'Calls refused by a rate-limit policy, by policy',
  ['policy'],
);
/** Requests refused by a plan rule: a Fusion scope or Document Intelligence. */
export const planRefusals = metrics.counter(
  'pds_plan_refusals_total',
  "Requests refused because the team's plan or its standing does not include what they ask for, by policy",
  ['policy'],
);
/** 503s given before or instead of the work: load shed, deadline passed, database outage. */
export const refusals = metrics.counter(
  'pds_requests_refused_total',
  'Requests answered 503 without their work: overload (load shedding), deadline, database (outage declared)',
  ['reason'],
);

/** Extraction jobs by outcome (completed, no_text, failed, retry) and how long each took. */
export const extractions = metrics.counter('pds_extractions_total', 'Extraction jobs finished, by outcome', [
  'outcome',
]);
export const extractionDuration = metrics.histogram(
  'pds_extraction_duration_seconds',
  'Extraction job time, by outcome',
  ['outcome'],
  [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
);

/** Search time by kind: documents in one project, documents everywhere, projects mentioning a term. */
export const searchDuration = metrics.histogram('pds_search_duration_seconds', 'Search time, by kind', [
  'kind',
]);

/** The time a statement waited for a pooled connection (statements on the driver's pool). */
export const poolAcquire = metrics.histogram(
  'pds_db_pool_acquire_seconds',
  'Time a statement waited for a pooled database connection, by pool',
  ['pool'],
  [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5],
);

/** Each pool by its role, while it is open; figures are the sum over a role's pools (primary and replicas). */
const pools = new Map<pg.Pool, 'requests' | 'background'>();

/** Reports `pool`'s connections (open, idle, requests waiting for one) under `role` until it ends. */
export function observePool(pool: pg.Pool, role: 'requests' | 'background'): void {
  pools.set(pool, role);
}

/** The role `pool` was observed under, for the figures of statements run on it. */
export function poolRole(pool: pg.Pool): string {
  return pools.get(pool) ?? 'other';
}

metrics.gauge(
  'pds_db_pool_connections',
  'Database pool connections by pool and state: open (in use or idle), idle, and waiting (statements queued for one)',
  ['pool', 'state'],
  function () {
    this.reset();
    for (const [pool, role] of pools) {
      if (pool.ended) {
        pools.delete(pool);
        continue;
      }
      this.inc({ pool: role, state: 'open' }, pool.totalCount);
      this.inc({ pool: role, state: 'idle' }, pool.idleCount);
      this.inc({ pool: role, state: 'waiting' }, pool.waitingCount);
    }
  },
);
