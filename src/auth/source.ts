/**
 * The source address of a request, for the failed-authentication limit (docs/behaviour.md "Failed authentications").
 *
 * By default the TCP peer's address. Behind a reverse proxy that is the proxy's address for every
 * client, so the per-source limit would count all clients together; `HRX_TRUST_PROXY=1` makes hrx
 * take the last address of `X-Forwarded-For` (the one the nearest proxy appended) instead. Set it
 * only when a proxy that appends that header is the sole way in: otherwise clients could name any
 * address they like.
 *
 * An IPv6 address counts by its /64 prefix: one host commonly holds a whole /64, so counting
 * single addresses would give it 2⁶⁴ budgets.
 */
import { isIP } from 'node:net';

/** Normalises an address: IPv4-mapped IPv6 → IPv4; IPv6 → its /64 (`2001:db8:1:2::/64`). */
export function sourceKey(address: string): string {
  const a = address.trim().toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (mapped) return mapped[1]!;
  if (isIP(a) !== 6) return a;
  const [head = '', tail] = a.split('%')[0]!.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  // An embedded IPv4 tail (`::1.2.3.4`) takes two groups; only the first four groups matter here.
  const groups = tail === undefined ? h : [...h, ...Array<string>(Math.max(0, 8 - h.length - t.length)).fill('0'), ...t];
  return `${groups
    .slice(0, 4)
    .map((g) => (g.includes('.') ? g : String(parseInt(g || '0', 16).toString(16))))
    .join(':')}::/64`;
}

/** Each connection's peer as a source (keep-alive connections carry many requests). */
const peers = new WeakMap<object, string>();

/** The source of a request: socket peer, or the last `X-Forwarded-For` entry when `trustProxy`. */
export function sourceAddress(
  req: { socket: { remoteAddress?: string | undefined }; headers: { [k: string]: string | string[] | undefined } },
  trustProxy: boolean,
): string {
  if (trustProxy) {
    const raw = req.headers['x-forwarded-for'];
    const value = Array.isArray(raw) ? raw.join(',') : raw;
    const last = value
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .pop();
    if (last && isIP(last)) return sourceKey(last);
  }
  let peer = peers.get(req.socket);
  if (peer === undefined) {
    peer = sourceKey(req.socket.remoteAddress ?? 'unknown');
    // Only a known address is kept: a closed socket's (undefined) is not that connection's peer.
    if (req.socket.remoteAddress !== undefined) peers.set(req.socket, peer);
  }
  return peer;
}
