import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { latency, type Latency } from './stats.js';

const run = promisify(execFile);

export interface LoadFigure {
  /** Requests per second (autocannon's mean). */
  perSecond: number;
  /** Client-side latency percentiles, ms. */
  p50: number;
  p95: number;
  non2xx: number;
  errors: number;
}

export interface LoadRequest {
  path: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

/**
 * autocannon in its own process (its CLI from node_modules), so that the load generator never
 * shares the server's event loop. Returns the mean throughput and latency percentiles.
 */
export async function autocannon(
  baseUrl: string,
  request: LoadRequest,
  opts: { connections: number; seconds: number; overallRate?: number },
): Promise<LoadFigure> {
  const dir = mkdtempSync(join(tmpdir(), 'pds-bench-http-'));
  try {
    const args = [
      createRequire(import.meta.url).resolve('autocannon/autocannon.js'),
      '--json',
      '-c',
      String(opts.connections),
      '-d',
      String(opts.seconds),
      '-m',
      request.method,
    ];
    // At most this many requests a second from all connections together (-R): a rate another
    // figure reached, so that per-request costs are compared at the same rate.
    if (opts.overallRate !== undefined) args.push('-R', String(Math.max(1, Math.round(opts.overallRate))));
    for (const [k, v] of Object.entries(request.headers ?? {})) args.push('-H', `${k}=${v}`);
    if (request.body !== undefined) {
      const file = join(dir, 'body.json');
      writeFileSync(file, request.body);
      args.push('-i', file);
    }
    args.push(baseUrl + request.path);
    const { stdout } = await run(process.execPath, args, { maxBuffer: 64 * 1024 * 1024 });
    const result = JSON.parse(stdout) as {
      requests: { average: number };
      latency: { p50: number; p97_5: number; p90: number; p99: number };
      non2xx: number;
      errors: number;
    };
    // autocannon reports p90, p97.5 and p99 but not p95; p97.5 is the conservative stand-in.
    return {
      perSecond: Math.round(result.requests.average),
      p50: result.latency.p50,
      p95: result.latency.p97_5,
      non2xx: result.non2xx,
      errors: result.errors,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Server-side latency per route, read from Fastify's own request timing (reply.elapsedTime) so
 * the figure excludes the load generator and the loopback.
 */
export class ServerTimings {
  private readonly samples = new Map<string, number[]>();
  private recording = true;

  constructor(server: FastifyInstance) {
    server.addHook('onResponse', async (request, reply) => {
      if (!this.recording) return;
      const route = request.routeOptions.url ?? request.url;
      const list = this.samples.get(route) ?? [];
      list.push(reply.elapsedTime);
      this.samples.set(route, list);
    });
  }

  reset(): void {
    this.samples.clear();
  }

  /**
   * Stops recording and drops what was kept: a long load (the memory section) would otherwise keep
   * every request's time in this process, about 8 bytes a request (5-11 MB of live heap over 10-20
   * minutes), and that growth would be counted as the server's.
   */
  stop(): void {
    this.recording = false;
    this.reset();
  }

  of(route: string): Latency {
    return latency(this.samples.get(route) ?? []);
  }
}

/** A bare route answering a fixed body: the floor any facade is compared with. */
export function bareRoute(server: FastifyInstance, path: string): (body: string) => void {
  let fixed = '{}';
  server.all(path, (_req, reply) => reply.type('application/json').send(fixed));
  return (body) => {
    fixed = body;
  };
}
