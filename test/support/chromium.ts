import { accessSync, constants } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium, installed by `.ci/run` (`apt-get install chromium`). */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * Why the real-browser tests cannot run here, or null when they can. Under CI a missing Chromium
 * is a broken machine, not a reason to skip: the caller fails instead.
 */
export function chromiumMissing(): string | null {
  try {
    accessSync(CHROMIUM_PATH, constants.X_OK);
    return null;
  } catch {
    return `${CHROMIUM_PATH} is not installed (apt-get install chromium; .ci/run installs it)`;
  }
}

export function runningInCi(): boolean {
  const ci = process.env.CI;
  return ci !== undefined && ci !== '' && ci !== '0' && ci.toLowerCase() !== 'false';
}

/**
 * Headless Chromium in a fresh profile (Playwright launches it with a new temporary
 * `--user-data-dir` and deletes it on close). The machine has no network: everything that would
 * phone home at start is off, and QUIC is off so nothing waits on UDP.
 * `trustSpki` names certificate keys to accept as if a CA had signed them (the test's TLS terminator).
 */
export function launchChromium(opts: { trustSpki?: string[] } = {}): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
      ...(opts.trustSpki?.length
        ? [`--ignore-certificate-errors-spki-list=${opts.trustSpki.join(',')}`]
        : []),
    ],
  });
}
