import 'reflect-metadata';
import { ConfigError, loadConfig } from '../config.js';
import { createApp, type App } from '../app.js';
import { classifyDbError } from '../db/availability.js';
import { backoffMs } from '../ingestion/queue.js';
import { installProcessGuards, stopOnSignals } from '../process-guard.js';

/**
 * `npm run worker`: an extraction worker without the HTTP API. Any number of these can share the
 * work of one PostgreSQL database (pg-boss spreads the jobs); the API nodes can then run with
 * extraction disabled. A database that is down at start is waited for (with backoff), and one that
 * goes away later pauses the worker until it is back: only a signal or a bug ends the process.
 */
let config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(1);
  }
  throw err;
}
if (!config.databaseUrl) {
  console.error(
    'npm run worker needs DATABASE_URL: the embedded database belongs to the `npm start` process, which runs its own worker.',
  );
  process.exit(1);
}

let app: App | null = null;
for (let attempt = 0; !app; attempt++) {
  try {
    app = await createApp(config, { worker: true });
  } catch (err) {
    if (!classifyDbError(err)) throw err;
    const waitMs = backoffMs(attempt);
    console.error(
      `extraction worker: the database is not reachable (${err instanceof Error ? err.message : String(err)}); retrying in ${waitMs / 1000} s`,
    );
    await new Promise((r) => setTimeout(r, waitMs));
  }
}
const started = app;
installProcessGuards({ log: started.server.log, role: 'worker', shutdown: () => started.close() });
started.server.log.info('extraction worker started');
stopOnSignals(started.server.log, () => started.close());
