import fc from 'fast-check';
import Fastify from 'fastify';
import { sendJsonText } from '../../../src/http/json-bytes.js';

/**
 * The hot answers are written as UTF-8 bytes instead of through Fastify's serializer: a client
 * must not be able to tell. Held over generated JSON values, non-ASCII and astral text included:
 * the same bytes, Content-Type and Content-Length as `reply.send(value)`.
 */
describe('sendJsonText', () => {
  const app = Fastify();
  let value: unknown;
  app.get('/serializer', (_req, reply) => reply.send(value));
  app.get('/bytes', (_req, reply) => sendJsonText(reply, JSON.stringify(value)));

  let base = '';
  beforeAll(async () => {
    base = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => app.close());

  const answer = async (url: string) => {
    const res = await fetch(base + url);
    return {
      status: res.status,
      type: res.headers.get('content-type'),
      length: res.headers.get('content-length'),
      bytes: Buffer.from(await res.arrayBuffer()).toString('hex'),
    };
  };

  it('answers with the bytes and headers of Fastify’s own JSON serialization', async () => {
    const objects = fc.dictionary(fc.string({ unit: 'grapheme' }), fc.jsonValue({ maxDepth: 3 }));
    await fc.assert(
      fc.asyncProperty(fc.oneof(objects, fc.array(fc.jsonValue({ maxDepth: 2 }))), async (v) => {
        value = v;
        const bytes = await answer('/bytes');
        expect(bytes).toEqual(await answer('/serializer'));
        expect(bytes.type).toBe('application/json; charset=utf-8');
        expect(Number(bytes.length)).toBe(Buffer.byteLength(JSON.stringify(v)));
      }),
      { numRuns: 300 },
    );
  });

  it('writes characters outside ASCII as UTF-8', async () => {
    value = { detail: '650 vs 655 sq ft ±33', name: 'Suite 𝔸 — Nord' };
    const { bytes } = await answer('/bytes');
    expect(JSON.parse(Buffer.from(bytes, 'hex').toString('utf8'))).toEqual(value);
    expect(bytes).toBe(Buffer.from(JSON.stringify(value), 'utf8').toString('hex'));
  });
});
