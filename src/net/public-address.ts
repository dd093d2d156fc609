import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * Where the service itself may connect on someone else's say-so (a webhook endpoint, an OAuth
 * client's metadata document): a public address only. Private, loopback, link-local,
 * carrier-grade NAT, multicast and reserved ranges are refused, when the URL is given (a literal
 * address) and again at every connection (the name's addresses as resolved then), so a name that
 * later resolves to an internal address reaches nothing. `allowLoopback` (tests and development)
 * also allows the loopback addresses.
 */

const BLOCKED = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) {
  BLOCKED.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  BLOCKED.addSubnet(net, bits, 'ipv6');
}
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** The IPv4 address inside an IPv4-mapped IPv6 one (::ffff:10.0.0.1), else the address itself. */
function unmapped(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/iu.exec(address);
  if (mapped) return { address: mapped[1], family: 'ipv4' };
  return { address, family: isIP(address) === 6 ? 'ipv6' : 'ipv4' };
}

export function isAllowedAddress(address: string, allowLoopback: boolean): boolean {
  const a = unmapped(address);
  if (allowLoopback && LOOPBACK.check(a.address, a.family)) return true;
  return !BLOCKED.check(a.address, a.family);
}

const NOT_PUBLIC = 'must not point at a private, loopback, link-local or reserved address';

/**
 * Why the URL may not be reached, or null when it may (as far as can be told before connecting):
 * an absolute URL of one of `protocols`, without credentials, whose host is not a literal
 * non-public address nor a `localhost` name.
 */
export function publicUrlProblem(
  raw: string,
  opts: { allowLoopback: boolean; protocols: readonly string[]; maxLength: number },
): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute https:// URL';
  }
  if (raw.length > opts.maxLength) return `must be at most ${opts.maxLength} characters`;
  if (!opts.protocols.includes(url.protocol)) return 'must be an https:// URL';
  if (url.username || url.password) return 'must not carry a user name or password';
  const host = url.hostname.replace(/^\[|\]$/gu, '');
  if (isIP(host) && !isAllowedAddress(host, opts.allowLoopback)) return NOT_PUBLIC;
  // A name may end with the root's dot (`localhost.`), which names the same host.
  const name = host.replace(/\.$/u, '').toLowerCase();
  if (!isIP(host) && !opts.allowLoopback && (name === 'localhost' || name.endsWith('.localhost'))) {
    return NOT_PUBLIC;
  }
  return null;
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for http(s).request that resolves the name and refuses to connect when any of its
 * addresses is not allowed (a name with one public and one private address could be steered).
 */
export function guardedLookup(allowLoopback: boolean) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    dnsLookup(hostname, { all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const refused = addresses.find((a) => !isAllowedAddress(a.address, allowLoopback));
      if (refused || addresses.length === 0) {
        const error: NodeJS.ErrnoException = new Error(
          `${hostname} resolves to ${refused?.address ?? 'no address'}, which this service may not reach`,
        );
        error.code = 'EADDRNOTALLOWED';
        return callback(error, []);
      }
      if (options.all) return callback(null, addresses);
      return callback(null, addresses[0].address, addresses[0].family);
    });
  };
}
