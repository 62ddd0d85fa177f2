/**
 * Which hosts hrx may call as an HRMS (SSRF guard). An HRMS host comes from outside (setup-config,
 * the Connect flow), so without a guard anyone holding such a credential could make hrx call its
 * own network: Redis, PostgreSQL, cloud metadata at 169.254.169.254, admin ports.
 *
 * A `HostPolicy` refuses a host that is, or whose name resolves to, a loopback, private,
 * link-local, unspecified, CGNAT, multicast or otherwise reserved address (IANA special-purpose
 * registries, RFC 6890), every IPv6 form that embeds an IPv4 address included (IPv4-mapped,
 * IPv4-translated, IPv4-compatible, NAT64, 6to4: docs/behaviour.md "HRMS hosts"). Names are checked where the
 * socket is made (the lookup of got's `dnsLookup` and of the policy's own agents), so the
 * address checked is the address connected to and DNS rebinding gains nothing; IP-literal hosts,
 * which are never looked up, are checked up front by `checkUrl`. The policy knows nothing of
 * HRMS APIs, the store or routes: connectors take it as an option (`ConnectorOptions.hostPolicy`),
 * and the registry wiring builds it from `HRX_HRMS_ALLOW_PRIVATE_HOSTS` and `HRX_HRMS_ALLOWED_HOSTS`.
 *
 * An operator whose HRMS (or sandbox simulator) sits on its own network names that one host and
 * port in `allowHosts` (`127.0.0.1:9100`) instead of lifting the guard: only a URL whose host is
 * spelled exactly so, on exactly that port, may reach a private address, and every other host and
 * every other port of that host stay refused, so an employer's admin who may set the HRMS host
 * still cannot point hrx at Redis, PostgreSQL or cloud metadata beside it (docs/behaviour.md
 * "HRMS hosts").
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';

interface Range {
  net: string;
  prefix: number;
  what: string;
}

/**
 * Refused IPv4 ranges. Each also refuses its IPv4-mapped IPv6 form `::ffff:a.b.c.d` (BlockList
 * matches those against IPv4 rules), its NAT64 form `64:ff9b::a.b.c.d` and its 6to4 prefix.
 */
export const BLOCKED_IPV4: readonly Range[] = [
  { net: '0.0.0.0', prefix: 8, what: '"this network", with the unspecified 0.0.0.0' },
  { net: '10.0.0.0', prefix: 8, what: 'private' },
  { net: '100.64.0.0', prefix: 10, what: 'shared address space (CGNAT)' },
  { net: '127.0.0.0', prefix: 8, what: 'loopback' },
  { net: '169.254.0.0', prefix: 16, what: 'link-local (cloud metadata)' },
  { net: '172.16.0.0', prefix: 12, what: 'private' },
  { net: '192.0.0.0', prefix: 24, what: 'IETF protocol assignments' },
  { net: '192.0.2.0', prefix: 24, what: 'documentation (TEST-NET-1)' },
  { net: '192.88.99.0', prefix: 24, what: '6to4 relay anycast (deprecated)' },
  { net: '192.168.0.0', prefix: 16, what: 'private' },
  { net: '198.18.0.0', prefix: 15, what: 'benchmarking' },
  { net: '198.51.100.0', prefix: 24, what: 'documentation (TEST-NET-2)' },
  { net: '203.0.113.0', prefix: 24, what: 'documentation (TEST-NET-3)' },
  { net: '224.0.0.0', prefix: 4, what: 'multicast' },
  { net: '240.0.0.0', prefix: 4, what: 'reserved, with the broadcast 255.255.255.255' },
];

/**
 * Refused IPv6 ranges. No rule may overlap `::ffff:0:0/96`: BlockList applies IPv6 rules to IPv4
 * addresses through that mapping, so such a rule would refuse public IPv4 hosts. The reserved
 * block `0::/3` is refused by {@link RESERVED_LOW} instead.
 */
export const BLOCKED_IPV6: readonly Range[] = [
  { net: '100::', prefix: 64, what: 'discard-only' },
  { net: '2001::', prefix: 23, what: 'IETF protocol assignments (Teredo, benchmarking, ORCHID)' },
  { net: '2001:db8::', prefix: 32, what: 'documentation' },
  { net: '3fff::', prefix: 20, what: 'documentation' },
  { net: '4000::', prefix: 2, what: 'outside global unicast 2000::/3 (unassigned)' },
  { net: '8000::', prefix: 1, what: 'outside global unicast: unassigned, ULA fc00::/7, link-local fe80::/10, site-local fec0::/10, multicast ff00::/8' },
  { net: 'fc00::', prefix: 7, what: 'unique local (private)' },
  { net: 'fe80::', prefix: 10, what: 'link-local' },
  { net: 'ff00::', prefix: 8, what: 'multicast' },
];

/**
 * `0::/3`, below global unicast `2000::/3` (RFC 4291 §2.4; IANA IPv6 address space): all of it
 * is refused except two /96 holes whose embedded IPv4 address decides, through the IPv4 rules:
 * IPv4-mapped `::ffff:0:0/96` (RFC 4291 §2.5.5.2) and the NAT64 well-known prefix
 * `64:ff9b::/96` (RFC 6052), which an IPv6-only network uses to reach public IPv4 hosts. So the
 * unspecified `::`, loopback `::1`, IPv4-compatible `::a.b.c.d` (`::/96`, RFC 4291 §2.5.5.1),
 * IPv4-translated `::ffff:0:a.b.c.d` (`::ffff:0:0:0/96`, RFC 2765 §2.1), local-use NAT64
 * `64:ff9b:1::/48` (RFC 8215) and every unassigned address there are refused whatever they embed.
 */
export const RESERVED_LOW = { net: '::', prefix: 3, holes: ['::ffff:0:0/96', '64:ff9b::/96'] } as const;

/** A hex IPv6 address of this file's constants (`a:b::c`, no dotted quad) as a 128-bit integer. */
function v6Bits(address: string): bigint {
  const [head = '', tail = ''] = address.split('::');
  const hi = head.split(':').filter(Boolean);
  const lo = tail.split(':').filter(Boolean);
  const groups = address.includes('::') ? [...hi, ...Array<string>(8 - hi.length - lo.length).fill('0'), ...lo] : hi;
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}

/** `bits` as an IPv6 address text (eight hex groups). */
function v6Text(bits: bigint): string {
  return Array.from({ length: 8 }, (_, i) => ((bits >> BigInt(112 - 16 * i)) & 0xffffn).toString(16)).join(':');
}

/**
 * The subnets covering `net/prefix` minus `holes` (each `addr/len`, inside it): the block is
 * split in halves until no half holds part of a hole (at most 2 × 128 subnets per hole).
 */
export function subnetsOutside(net: string, prefix: number, holes: readonly string[]): { net: string; prefix: number }[] {
  const hs = holes.map((h) => {
    const [addr, len] = h.split('/') as [string, string];
    return { bits: v6Bits(addr), len: Number(len) };
  });
  const out: { net: string; prefix: number }[] = [];
  const walk = (bits: bigint, len: number): void => {
    const shift = BigInt(128 - len);
    const inside = hs.filter((h) => h.len >= len && h.bits >> shift === bits >> shift);
    if (inside.length === 0) return void out.push({ net: v6Text(bits), prefix: len });
    if (inside.some((h) => h.len === len)) return; // the block is a hole
    walk(bits, len + 1);
    walk(bits | (1n << BigInt(127 - len)), len + 1);
  };
  walk(v6Bits(net), prefix);
  return out;
}

/** The two 16-bit words of one of the IPv4 constants above, in hex. */
function words(v4: string): [string, string] {
  const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
  return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
}

function buildBlockList(): BlockList {
  const list = new BlockList();
  for (const r of BLOCKED_IPV4) {
    const [hi, lo] = words(r.net);
    list.addSubnet(r.net, r.prefix, 'ipv4');
    list.addSubnet(`64:ff9b::${hi}:${lo}`, 96 + r.prefix, 'ipv6'); // NAT64 (RFC 6052)
    list.addSubnet(`2002:${hi}:${lo}::`, 16 + r.prefix, 'ipv6'); // 6to4 (RFC 3056)
  }
  for (const r of BLOCKED_IPV6) list.addSubnet(r.net, r.prefix, 'ipv6');
  for (const r of subnetsOutside(RESERVED_LOW.net, RESERVED_LOW.prefix, RESERVED_LOW.holes)) list.addSubnet(r.net, r.prefix, 'ipv6');
  return list;
}

const BLOCKED = buildBlockList();

/**
 * Whether hrx must not connect to `address` (an IPv4 or IPv6 address, brackets and a zone id
 * allowed; BlockList matches IPv4-mapped IPv6 against the IPv4 rules). Anything that is not an IP
 * address is refused too.
 */
export function isBlockedAddress(address: string): boolean {
  const bare = address.replace(/^\[(.*)\]$/, '$1');
  const family = isIP(bare);
  if (family === 0) return true;
  try {
    return BLOCKED.check(bare, family === 4 ? 'ipv4' : 'ipv6');
  } catch {
    return true;
  }
}

/** Code of the error a policy refuses a host with (also on got's wrapping `RequestError`). */
export const HOST_NOT_ALLOWED = 'ERR_HOST_NOT_ALLOWED';

/** A refused host. The message never names the host or the addresses it resolved to. */
export class HostNotAllowedError extends Error {
  readonly code = HOST_NOT_ALLOWED;
  constructor() {
    super('host not allowed');
    this.name = 'HostNotAllowedError';
  }
}

/** Whether `err` (or an error it wraps as `cause`, such as got's `RequestError`) is a policy refusal. */
export function isHostNotAllowed(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { code?: unknown }).code === HOST_NOT_ALLOWED) return true;
  }
  return false;
}

/**
 * A host as the policy compares it: the WHATWG URL parser's host (lower case, IDNA to punycode,
 * IPv4 in dotted decimal, IPv6 compressed without brackets), without one trailing dot. Returns
 * null for text that is not a bare host (a port, path, scheme, user info or wildcard).
 */
export function normalizeHost(text: string): string | null {
  const t = text.trim();
  if (t === '' || /[/?#@*\\\s]/.test(t)) return null;
  // A colon belongs only inside an IPv6 literal (bracketed or bare): `host:80` is refused, though
  // the URL parser would drop the scheme's default port without a trace.
  const v6 = isIP(t.replace(/^\[(.*)\]$/, '$1')) === 6;
  if (!v6 && t.includes(':')) return null;
  let url: URL;
  try {
    url = new URL(`http://${v6 && !t.startsWith('[') ? `[${t}]` : t}/`);
  } catch {
    return null;
  }
  if (url.port !== '' || url.username !== '' || url.password !== '' || url.pathname !== '/') return null;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
  return host === '' ? null : host;
}

/**
 * An allowed `host:port` entry as the policy compares it: the host as `normalizeHost` returns it
 * (an IPv6 literal in brackets, `[::1]:9100`), a colon, and the port in decimal (1..65535, no
 * leading zero). Returns null for text that is not exactly a bare host and a port: a port-less
 * entry is refused, since it would let every port of the host through (docs/settings.md
 * `HRX_HRMS_ALLOWED_HOSTS`).
 */
export function normalizeHostPort(text: string): string | null {
  const m = /^(\[[^\]]+\]|[^:[\]]+):([1-9]\d{0,4})$/.exec(text.trim());
  if (!m || Number(m[2]) > 65_535) return null;
  const host = normalizeHost(m[1]!);
  return host === null ? null : hostPortKey(host, m[2]!);
}

/** `host:port` of a normalized host, an IPv6 literal bracketed. */
const hostPortKey = (host: string, port: string): string => `${host.includes(':') ? `[${host}]` : host}:${port}`;

/** `dns.lookup` with `all: true`: how a policy resolves names (tests substitute their own). */
export type Resolver = (hostname: string, options: LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

export interface HostPolicy {
  /**
   * Throws `HostNotAllowedError` for a URL whose scheme is not http(s) or whose host is an IP
   * literal in a refused range. Host names pass here: they are checked by `lookup`.
   */
  checkUrl(url: URL): void;
  /**
   * A `net` lookup (got's `dnsLookup`) that resolves with node:dns and fails with
   * `HostNotAllowedError` when any resolved address is refused.
   */
  lookup: LookupFunction;
  /**
   * Keep-alive agents whose sockets are all made through `lookup`: a socket another client of
   * the process opened (global agents) is never reused for a checked request.
   */
  agent: { http: http.Agent; https: https.Agent };
}

/**
 * Builds the policy that refuses private, loopback, link-local and reserved hosts. `onRefused`
 * is called for each host refused for its address (not for a wrong scheme), with nothing of the
 * host: the caller logs which setting would allow it. `allowHosts` (`host:port` entries, as
 * `normalizeHostPort` reads them) are hosts and ports the operator placed on its own network: a
 * URL whose host and port (the scheme's default when it names none) are exactly one entry may
 * reach any address; the same host on another port is refused by `checkUrl` whatever it resolves
 * to; a name merely ending in one (`x.hrms-sim`) or an address one resolves to, spelled as a
 * literal, is checked as any other. The lookup sees no port, so a caller must pass every URL it
 * requests through `checkUrl` first (the HRMS client does, and keeps each request on the checked
 * origin). Throws TypeError for an entry that is not a bare host and port.
 */
export function createHostPolicy(opts: { resolve?: Resolver; onRefused?: () => void; allowHosts?: readonly string[] } = {}): HostPolicy {
  const resolve: Resolver = opts.resolve ?? ((hostname, options, callback) => dnsLookup(hostname, options, callback));
  const allowed = new Set<string>();
  const allowedNames = new Set<string>();
  for (const h of opts.allowHosts ?? []) {
    const n = normalizeHostPort(h);
    if (n === null) throw new TypeError('an allowed host must be a bare host name or IP address and a port');
    allowed.add(n);
    allowedNames.add(normalizeHost(n.slice(0, n.lastIndexOf(':')))!);
  }
  /** Whether the lookup may let `host` reach a private address: `checkUrl` has held its port to the allowed ones. */
  const isAllowed = (host: string): boolean => allowedNames.size > 0 && allowedNames.has(normalizeHost(host) ?? '');
  const refused = (): HostNotAllowedError => {
    opts.onRefused?.();
    return new HostNotAllowedError();
  };
  const lookup: LookupFunction = (hostname, options, callback) => {
    const exempt = isAllowed(hostname);
    if (isIP(hostname)) {
      // net never looks up an IP literal; checked here too should a caller do so.
      if (!exempt && isBlockedAddress(hostname)) return callback(refused(), '', 0);
    }
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      if (!addresses?.length) return callback(Object.assign(new Error('no address'), { code: 'ENOTFOUND' }), '', 0);
      if (!exempt && addresses.some((a) => isBlockedAddress(a.address))) return callback(refused(), '', 0);
      if (options.all) return callback(null, addresses);
      const first = addresses[0]!;
      return callback(null, first.address, first.family);
    });
  };
  return {
    checkUrl(url) {
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new HostNotAllowedError();
      const host = normalizeHost(url.hostname);
      const exact = host !== null && allowed.has(hostPortKey(host, url.port || (url.protocol === 'https:' ? '443' : '80')));
      // An allowed host on another port: refused before any lookup, whatever the name resolves to.
      if (!exact && isAllowed(url.hostname)) throw refused();
      if (isIP(url.hostname.replace(/^\[(.*)\]$/, '$1')) && !exact && isBlockedAddress(url.hostname)) throw refused();
    },
    lookup,
    agent: {
      // The options of node's global agents, plus the lookup.
      http: new http.Agent({ keepAlive: true, scheduling: 'lifo', timeout: 5_000, lookup }),
      https: new https.Agent({ keepAlive: true, scheduling: 'lifo', timeout: 5_000, lookup }),
    },
  };
}
