import { execFileSync } from 'node:child_process';
import { X509Certificate, createHash } from 'node:crypto';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { createServer, getCACertificates, setDefaultCACertificates, type Server } from 'node:tls';

export interface TlsTerminator {
  /** `https://127.0.0.1:<port>`: the address browsers and clients use. */
  origin: string;
  /** Base64 SHA-256 of the certificate's public key, as Chromium's `--ignore-certificate-errors-spki-list` takes it. */
  spkiHash: string;
  /** Sends the decrypted bytes to the service listening on this port. */
  forwardTo(port: number): void;
  close(): Promise<void>;
}

/** A throwaway self-signed certificate for 127.0.0.1, made by the openssl command line. */
export function selfSignedCertificate(): { key: string; cert: string } {
  const pem = execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      '-',
      '-out',
      '-',
    ],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const key = /-----BEGIN PRIVATE KEY-----[\s\S]+?-----END PRIVATE KEY-----/.exec(pem)?.[0];
  const cert = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(pem)?.[0];
  if (!key || !cert) throw new Error('openssl did not print a key and a certificate');
  return { key, cert };
}

/**
 * HTTPS in front of the service the way a load balancer terminates TLS in production: the service
 * itself speaks plain HTTP, and PUBLIC_BASE_URL names this https origin, so the session cookie
 * takes its `__Host-` form. Node's own clients (the MCP SDK's fetch) trust the certificate until
 * `close()`; browsers are told its key.
 */
export async function startTlsTerminator(): Promise<TlsTerminator> {
  const { key, cert } = selfSignedCertificate();
  let target: number | null = null;
  const sockets = new Set<Socket>();
  const server: Server = createServer({ key, cert }, (tlsSocket) => {
    if (target === null) {
      tlsSocket.destroy();
      return;
    }
    const upstream = connect(target, '127.0.0.1');
    for (const s of [tlsSocket, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        tlsSocket.destroy();
        upstream.destroy();
      });
    }
    tlsSocket.pipe(upstream).pipe(tlsSocket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const previousCAs = getCACertificates('default');
  setDefaultCACertificates([...previousCAs, cert]);
  const spki = new X509Certificate(cert).publicKey.export({ type: 'spki', format: 'der' });
  return {
    origin: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spkiHash: createHash('sha256').update(spki).digest('base64'),
    forwardTo: (port) => {
      target = port;
    },
    close: async () => {
      setDefaultCACertificates(previousCAs);
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
