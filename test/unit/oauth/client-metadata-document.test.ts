import { guardedLookup } from '../../../src/net/public-address.js';
import {
  clientIdUrlProblem,
  freshnessSeconds,
  isMetadataDocumentClientId,
} from '../../../src/oauth/client-metadata-document.js';

describe('client ids that name a metadata document', () => {
  it('tells a URL from a registered client id', () => {
    expect(isMetadataDocumentClientId('https://app.example/oauth/client.json')).toBe(true);
    expect(isMetadataDocumentClientId('http://app.example/client')).toBe(true);
    expect(isMetadataDocumentClientId('0b7a3c1e-9a52-4c1b-8d7e-3f2a1b0c9d8e')).toBe(false);
  });

  it.each([
    ['https://app.example/oauth/client.json', null],
    ['https://app.example:8443/client?v=2', null],
    ['http://app.example/client.json', /https/],
    ['https://app.example/', /path/],
    ['https://app.example', /path/],
    ['https://app.example/a/../client.json', /dot segments/],
    ['https://App.Example/client.json', /normalized/],
    ['https://app.example/a/%2e%2e/client.json', /dot segments/],
    ['https://app.example/a/.%2E/client.json', /dot segments/],
    ['https://app.example/v1.2/client.json?v=1%2e0', null],
    ['https://app.example/client.json#frag', /fragment/],
    ['https://user:pw@app.example/client.json', /user name or password/],
    ['https://127.0.0.1/client.json', /private, loopback/],
    ['https://localhost/client.json', /private, loopback/],
    ['https://app.localhost/client.json', /private, loopback/],
    ['https://localhost./client.json', /private, loopback/],
    ['https://[::1]/client.json', /private, loopback/],
    ['https://[fe80::1]/client.json', /private, loopback/],
    ['https://[::ffff:10.0.0.1]/client.json', /private, loopback/],
    ['https://10.1.2.3/client.json', /private, loopback/],
    ['https://172.16.0.1/client.json', /private, loopback/],
    ['https://192.168.1.1/client.json', /private, loopback/],
    ['https://169.254.169.254/latest/meta-data', /private, loopback/],
    ['https://0x7f.1/client.json', /private, loopback/],
    [`https://app.example/${'a'.repeat(2100)}`, /at most 2048/],
  ])('%s: %s', (url, problem) => {
    const found = clientIdUrlProblem(url, false);
    if (problem === null) expect(found).toBeNull();
    else expect(found).toMatch(problem);
  });

  it('allows loopback addresses only when told to, and still only over https', () => {
    expect(clientIdUrlProblem('https://127.0.0.1:8443/client.json', true)).toBeNull();
    expect(clientIdUrlProblem('http://127.0.0.1:8443/client.json', true)).toMatch(/https/);
    expect(clientIdUrlProblem('https://10.0.0.1/client.json', true)).toMatch(/private/);
  });
});

describe('how long a fetched document is kept', () => {
  const now = Date.parse('2026-11-28T00:00:00Z');
  it.each([
    [{}, 300],
    [{ 'cache-control': 'max-age=60' }, 60],
    [{ 'cache-control': 'public, max-age=600', age: '100' }, 500],
    [{ 'cache-control': 'max-age=999999999' }, 86_400],
    [{ 'cache-control': 'no-store' }, 0],
    [{ 'cache-control': 'no-cache, max-age=60' }, 0],
    [{ 'cache-control': 'max-age=60', age: '120' }, 0],
    [{ expires: 'Sat, 28 Nov 2026 00:02:00 GMT', date: 'Sat, 28 Nov 2026 00:00:00 GMT' }, 120],
    [{ expires: 'Sat, 28 Nov 2026 00:02:00 GMT' }, 120],
    [{ expires: '0' }, 0],
    [{ 'cache-control': 'max-age=30', expires: 'Sat, 28 Nov 2026 01:00:00 GMT' }, 30],
  ])('%j: %i s', (headers, seconds) => {
    expect(freshnessSeconds(headers, now)).toBe(seconds);
  });
});

describe('the connection-time address check', () => {
  it('refuses a name that resolves to a loopback address unless loopback is allowed', async () => {
    const resolve = (allowLoopback: boolean) =>
      new Promise<string>((done) =>
        guardedLookup(allowLoopback)('localhost', { all: true }, (err) =>
          done(err ? (err.code ?? 'error') : 'ok'),
        ),
      );
    expect(await resolve(false)).toBe('EADDRNOTALLOWED');
    expect(await resolve(true)).toBe('ok');
  });
});
