import { Writable } from 'node:stream';
import { loadConfig } from '../../../src/config.js';
import { generateSecret } from '../../../src/auth/secret.js';
import { redactUrl } from '../../../src/http/query-credentials.js';
import { buildHttpServer } from '../../../src/http/server.js';

describe('secrets of this service in logged URLs', () => {
  const secret = generateSecret('key');

  it.each([
    [`/graphql?x=${secret}`, '/graphql?x=[redacted]'],
    [
      `/api/v1/building-links/1?foo=${encodeURIComponent(secret)}&b=2`,
      '/api/v1/building-links/1?foo=[redacted]&b=2',
    ],
    [`/p/${secret.replace(/_/g, '%5F')}`, '/p/[redacted]'],
  ])('are redacted by value: %s', (url, logged) => {
    expect(redactUrl(url)).toBe(logged);
  });

  it('never reach the request log, whatever the parameter is called', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const app = buildHttpServer(
      { config: loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'info' }) },
      { logStream: stream },
    );
    app.get('/ping', () => ({ ok: true }));
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as { port: number };
    expect((await fetch(`http://127.0.0.1:${port}/ping?unknown=${secret}`)).status).toBe(200);
    await app.close();
    expect(lines.join('')).toContain('/ping?unknown=[redacted]');
    expect(lines.join('')).not.toContain(secret.slice(8));
  });
});
