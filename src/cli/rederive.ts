import 'reflect-metadata';
import { loadConfig } from '../config.js';
import { migrateUp, openDatabase } from '../db/orm.js';
import { rederiveSearchText } from '../search/text/rederive.js';

/**
 * `npm run search:rederive`: applies pending migrations, then derives every chunk whose search
 * text came from an older normalizer again (src/search/text/rederive.ts), printing progress. A process
 * that runs extraction jobs does the same in the background at start; this runs it to the end
 * now, beside or instead of them (they share the work).
 */
const config = loadConfig();
const db = await openDatabase(config);
const print = (fields: object, message: string) => console.log(`${message} ${JSON.stringify(fields)}`);
try {
  await migrateUp(db.orm);
  const done = await rederiveSearchText(db.orm.em, { info: print, warn: print });
  if (done === 0) console.log('search text: every chunk is current');
} finally {
  await db.close();
}
