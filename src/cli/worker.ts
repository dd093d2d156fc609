import 'reflect-metadata';
import { ConfigError, loadConfig } from '../config.js';
import { createApp } from '../app.js';

/**
 * `npm run worker`: an extraction worker without the HTTP API. Any number of these can share the
 * work of one PostgreSQL database (pg-boss spreads the jobs); the API nodes can then run with
 * extraction disabled.
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
const app = await createApp(config, { worker: true });
app.server.log.info('extraction worker started');
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    app.server.log.info({ signal }, 'worker stopping');
    void app.close().then(() => process.exit(0));
  });
}
