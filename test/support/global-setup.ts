import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A directory for this test run's migrated templates (see test/support/template.ts). */
export default function globalSetup(): void {
  process.env.PDS_TEST_RUN_DIR = mkdtempSync(join(tmpdir(), 'pds-test-run-'));
}
