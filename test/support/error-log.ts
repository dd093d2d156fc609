import { Writable } from 'node:stream';

/**
 * A log stream for a test app (`{ logger: true, logStream }` with LOG_LEVEL=warn) that keeps the
 * error-level lines: the fuzz suites fail when bad input made the service log an error.
 */
export function errorLogCapture(): { logStream: Writable; errorLines: string[] } {
  const errorLines: string[] = [];
  const logStream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) {
        if (line.startsWith('{') && (JSON.parse(line) as { level: number }).level >= 50)
          errorLines.push(line);
      }
      done();
    },
  });
  return { logStream, errorLines };
}
