/**
 * The HRMS host policy (SSRF guard, src/outbound/host-policy.ts): which addresses are refused, which
 * URLs are refused up front, and the lookup that refuses names resolving to a refused address.
 * The lookup tests use a substitute resolver, except one on this machine's `localhost`.
 */
import type { LookupAddress, LookupAllOptions } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config';
import {
  createHostPolicy,
  HOST_NOT_ALLOWED,
  HostNotAllowedError,
  isBlockedAddress,
  isHostNotAllowed,
  normalizeHost,
  normalizeHostPort,
  subnetsOutside,
  type Resolver,
} from '../../src/outbound/host-policy';

const REFUSED: [string, string][] = [
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback, end of 127/8'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', '"this network"'],
  ['10.0.0.1', 'private 10/8'],
  ['10.255.255.255', 'private 10/8, last'],
  ['172.16.0.1', 'private 172.16/12, first'],
  ['172.31.255.255', 'private 172.16/12, last'],
  ['192.168.1.1', 'private 192.168/16'],
  ['169.254.169.254', 'cloud metadata'],
  ['169.254.0.1', 'link-local'],
  ['100.64.0.1', 'CGNAT, first'],
  ['100.127.255.255', 'CGNAT, last'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast (SSDP)'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'broadcast'],
  ['192.0.0.8', 'IETF protocol assignments'],
  ['192.0.2.1', 'TEST-NET-1'],
  ['198.18.0.1', 'benchmarking'],
  ['198.51.100.7', 'TEST-NET-2'],
  ['203.0.113.9', 'TEST-NET-3'],
  ['192.88.99.1', '6to4 relay anycast'],
  ['::', 'IPv6 unspecified'],
  ['::1', 'IPv6 loopback'],
  ['0:0:0:0:0:0:0:1', 'IPv6 loopback, long form'],
  ['[::1]', 'bracketed'],
  ['::127.0.0.1', 'IPv4-compatible (deprecated)'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
  ['::ffff:7f00:1', 'IPv4-mapped loopback, hex'],
  ['0:0:0:0:0:ffff:7f00:0001', 'IPv4-mapped loopback, long form'],
  ['::ffff:10.0.0.1', 'IPv4-mapped private'],
  ['::ffff:169.254.169.254', 'IPv4-mapped metadata'],
  ['::ffff:0.0.0.0', 'IPv4-mapped unspecified'],
  ['::ffff:100.64.0.1', 'IPv4-mapped CGNAT'],
  ['::ffff:0:7f00:1', 'IPv4-translated loopback (RFC 2765)'],
  ['::ffff:0:127.0.0.1', 'IPv4-translated loopback, dotted'],
  ['0:0:0:0:ffff:0:7f00:0001', 'IPv4-translated loopback, long form'],
  ['::ffff:0:a00:1', 'IPv4-translated private 10/8'],
  ['::ffff:0:a9fe:a9fe', 'IPv4-translated metadata'],
  ['::ffff:0:c0a8:101', 'IPv4-translated 192.168.1.1'],
  ['::ffff:0:0:0', 'IPv4-translated unspecified'],
  ['::ffff:0:808:808', 'IPv4-translated public: reserved 0::/3, never a real host'],
  ['::a00:1', 'IPv4-compatible private, hex'],
  ['::808:808', 'IPv4-compatible public (deprecated, reserved)'],
  ['::fffe:ffff:ffff', 'just below the IPv4-mapped block'],
  ['::1:0:0:0', 'just above the IPv4-mapped block'],
  ['::1:0:0:1', 'reserved 0::/8'],
  ['64:ff9a:ffff:ffff:ffff:ffff:ffff:ffff', 'just below NAT64 64:ff9b::/96'],
  ['64:ff9b::1:0:0', 'just above NAT64 64:ff9b::/96'],
  ['200::1', 'reserved 200::/7'],
  ['1fff:ffff::1', 'reserved, just below 2000::/3'],
  ['64:ff9b::127.0.0.1', 'NAT64 of loopback'],
  ['64:ff9b::a00:1', 'NAT64 of private 10/8'],
  ['64:ff9b::a9fe:a9fe', 'NAT64 of metadata'],
  ['64:ff9b:1::1', 'local-use NAT64'],
  ['2002:7f00:1::1', '6to4 of loopback'],
  ['2002:c0a8:101::1', '6to4 of 192.168.1.1'],
  ['2002:a00:1::1', '6to4 of private 10/8'],
  ['2002:a9fe:a9fe::1', '6to4 of metadata'],
  ['fc00::1', 'ULA'],
  ['fd12:3456:789a::1', 'ULA'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local with a zone'],
  ['FE80::ABCD', 'link-local, upper case'],
  ['febf:ffff::1', 'link-local, last'],
  ['fec0::1', 'site-local (deprecated)'],
  ['ff02::1', 'multicast'],
  ['100::1', 'discard-only'],
  ['2001::1', 'Teredo'],
  ['2001:db8::1', 'documentation'],
  ['3fff::1', 'documentation'],
  ['4000::1', 'outside global unicast'],
  ['localhost', 'not an address'],
  ['', 'empty'],
  ['1.2.3', 'not an address'],
  ['::ffff:1.2.3.4.5', 'malformed'],
];

const ALLOWED: [string, string][] = [
  ['8.8.8.8', 'public'],
  ['1.1.1.1', 'public'],
  ['93.184.216.34', 'public'],
  ['9.255.255.255', 'just below 10/8'],
  ['11.0.0.1', 'just above 10/8'],
  ['172.15.255.255', 'just below 172.16/12'],
  ['172.32.0.1', 'just above 172.16/12'],
  ['100.63.255.255', 'just below CGNAT'],
  ['100.128.0.1', 'just above CGNAT'],
  ['169.253.255.255', 'just below 169.254/16'],
  ['169.255.0.1', 'just above 169.254/16'],
  ['192.167.255.255', 'just below 192.168/16'],
  ['126.255.255.255', 'just below 127/8'],
  ['128.0.0.1', 'just above 127/8'],
  ['223.255.255.255', 'just below multicast'],
  ['198.20.0.1', 'just above benchmarking'],
  ['2606:4700:4700::1111', 'public IPv6'],
  ['2001:4860:4860::8888', 'public IPv6 (outside 2001::/23)'],
  ['2a00:1450:4001::1', 'public IPv6'],
  ['::ffff:8.8.8.8', 'IPv4-mapped public'],
  ['64:ff9b::808:808', 'NAT64 of a public address'],
  ['64:ff9b::8.8.8.8', 'NAT64 of a public address, dotted'],
  ['::ffff:808:808', 'IPv4-mapped public, hex'],
  ['2000::1', 'first block of global unicast'],
  ['2002:808:808::1', '6to4 of a public address'],
];

describe('isBlockedAddress', () => {
  it.each(REFUSED)('refuses %s (%s)', (address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });

  it.each(ALLOWED)('allows %s (%s)', (address) => {
    expect(isBlockedAddress(address)).toBe(false);
  });
});

describe('subnetsOutside (the reserved 0::/3 minus its two IPv4-embedding holes)', () => {
  it('splits a block around a hole into halves that never touch it', () => {
    // ::/126 minus ::2/127 is ::/127 (:: and ::1); minus ::1/128 as well leaves ::/128.
    expect(subnetsOutside('::', 126, ['::2/127'])).toEqual([{ net: '0:0:0:0:0:0:0:0', prefix: 127 }]);
    expect(subnetsOutside('::', 126, ['::2/127', '::1/128'])).toEqual([{ net: '0:0:0:0:0:0:0:0', prefix: 128 }]);
    expect(subnetsOutside('::', 3, [])).toEqual([{ net: '0:0:0:0:0:0:0:0', prefix: 3 }]);
  });

  it('covers 0::/3 except ::ffff:0:0/96 and 64:ff9b::/96, exactly its size', () => {
    const subnets = subnetsOutside('::', 3, ['::ffff:0:0/96', '64:ff9b::/96']);
    const size = subnets.reduce((n, s) => n + 2n ** BigInt(128 - s.prefix), 0n);
    expect(size).toBe(2n ** 125n - 2n * 2n ** 32n);
    // The hole's sibling at /96 (IPv4-compatible ::/96 sits further up): refused whole.
    expect(subnets).toContainEqual({ net: '0:0:0:0:0:fffe:0:0', prefix: 96 });
  });
});

describe('checkUrl (before any connection)', () => {
  const policy = createHostPolicy({
    resolve: () => {
      throw new Error('checkUrl must not resolve');
    },
  });
  const refused = [
    'ftp://hrms.example.com/',
    'file:///etc/passwd',
    'gopher://hrms.example.com:70/',
    'ws://hrms.example.com/',
    'data:text/plain,x',
    'http://127.0.0.1:6379/',
    'http://[::1]:5432/',
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.1/',
    'https://192.168.0.10:8443/',
    'http://0.0.0.0:8080/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:a9fe:a9fe]/',
    // WHATWG URL normalizes these IPv4 spellings to 127.0.0.1 before the check sees them.
    'http://2130706433/',
    'http://0x7f.1/',
    'http://127.1/',
    'http://127.0.0.1./',
    'http://%31%32%37.0.0.1/',
    'http://[fe80::1]/',
    'http://[::ffff:0:7f00:1]:6379/',
    'http://[::ffff:0:a9fe:a9fe]/',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://[2002:a9fe:a9fe::]/',
    'http://[::7f00:1]/',
    'http://[fd00::1]:9000/',
  ];
  it.each(refused)('refuses %s', (raw) => {
    expect(() => policy.checkUrl(new URL(raw))).toThrow(HostNotAllowedError);
  });

  // Names pass here: they are checked where the socket is made (lookup), never only up front.
  it.each(['http://localhost:9100/', 'https://hrms.example.com/api', 'http://8.8.8.8/', 'https://[2606:4700:4700::1111]/'])('lets %s through', (raw) => {
    expect(() => policy.checkUrl(new URL(raw))).not.toThrow();
  });
});

/** Calls the policy's lookup the way net does; resolves with what its callback got. */
function lookupWith(
  resolved: LookupAddress[] | NodeJS.ErrnoException,
  hostname = 'hrms.example.com',
  options: { all?: boolean; family?: number } = {},
  allowHosts: string[] = [],
) {
  const calls: { hostname: string; options: LookupAllOptions }[] = [];
  const resolve: Resolver = (h, o, cb) => {
    calls.push({ hostname: h, options: o });
    queueMicrotask(() => (resolved instanceof Error ? cb(resolved, []) : cb(null, resolved)));
  };
  const { lookup } = createHostPolicy({ resolve, allowHosts });
  return new Promise<{ err: NodeJS.ErrnoException | null; address: unknown; family: unknown; calls: typeof calls }>((r) => {
    lookup(hostname, options, (err, address, family) => r({ err, address, family, calls }));
  });
}

describe('lookup (at connection time)', () => {
  it('passes an allowed name through, as one address or all of them, and resolves every family with all: true', async () => {
    const one = await lookupWith([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ]);
    expect(one).toMatchObject({ err: null, address: '93.184.216.34', family: 4 });
    expect(one.calls).toEqual([{ hostname: 'hrms.example.com', options: { all: true } }]);
    const all = await lookupWith([{ address: '93.184.216.34', family: 4 }], 'hrms.example.com', { all: true, family: 4 });
    expect(all).toMatchObject({ err: null, address: [{ address: '93.184.216.34', family: 4 }] });
    expect(all.calls[0]!.options).toEqual({ all: true, family: 4 });
  });

  it.each([
    [[{ address: '127.0.0.1', family: 4 }]],
    [[{ address: '169.254.169.254', family: 4 }]],
    [[{ address: '::ffff:127.0.0.1', family: 6 }]],
    [[{ address: 'fd00::5', family: 6 }]],
    // Any refused address refuses the name: one public address beside it does not help.
    [
      [
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.1', family: 4 },
      ],
    ],
    [
      [
        { address: '2606:2800:220:1::1', family: 6 },
        { address: '::1', family: 6 },
      ],
    ],
  ])('refuses a name resolving to %j, naming no address', async (resolved) => {
    const res = await lookupWith(resolved);
    expect(res.err).toBeInstanceOf(HostNotAllowedError);
    expect(res.err!.code).toBe(HOST_NOT_ALLOWED);
    for (const a of resolved) expect(res.err!.message).not.toContain(a.address);
    expect(res.address).toBe('');
  });

  it('passes resolver errors through and treats an empty answer as not found', async () => {
    const nx = Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    expect((await lookupWith(nx)).err).toBe(nx);
    expect((await lookupWith([])).err?.code).toBe('ENOTFOUND');
  });

  it("refuses this machine's localhost through node:dns (the default resolver)", async () => {
    const { lookup } = createHostPolicy();
    const err = await new Promise<NodeJS.ErrnoException | null>((r) => lookup('localhost', {}, (e) => r(e)));
    expect(err).toBeInstanceOf(HostNotAllowedError);
  });

  it('finds a refusal wrapped as a cause (as got wraps it)', () => {
    expect(isHostNotAllowed(new Error('request failed', { cause: new HostNotAllowedError() }))).toBe(true);
    expect(isHostNotAllowed(Object.assign(new Error('x'), { code: HOST_NOT_ALLOWED }))).toBe(true);
    expect(isHostNotAllowed(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe(false);
    expect(isHostNotAllowed(undefined)).toBe(false);
  });
});

describe('HRX_HRMS_ALLOW_PRIVATE_HOSTS', () => {
  it('defaults to 0 (refuse), takes 0 or 1 only', () => {
    expect(loadConfig({}).HRX_HRMS_ALLOW_PRIVATE_HOSTS).toBe(false);
    expect(loadConfig({ HRX_HRMS_ALLOW_PRIVATE_HOSTS: '0' }).HRX_HRMS_ALLOW_PRIVATE_HOSTS).toBe(false);
    expect(loadConfig({ HRX_HRMS_ALLOW_PRIVATE_HOSTS: '1' }).HRX_HRMS_ALLOW_PRIVATE_HOSTS).toBe(true);
    for (const bad of ['yes', 'true', '2']) {
      expect(() => loadConfig({ HRX_HRMS_ALLOW_PRIVATE_HOSTS: bad })).toThrow(ConfigError);
    }
    expect(() => loadConfig({ HRX_HRMS_ALLOW_PRIVATE_HOSTS: 'yes' })).toThrow(/HRX_HRMS_ALLOW_PRIVATE_HOSTS/);
  });
});

describe('allowHosts (HRX_HRMS_ALLOWED_HOSTS): named hosts and ports on the operator network', () => {
  const LOOPBACK: LookupAddress[] = [{ address: '127.0.0.1', family: 4 }];
  const PRIVATE: LookupAddress[] = [{ address: '10.1.2.3', family: 4 }];

  it('lets exactly a listed name reach a private address, in any case and with a trailing dot', async () => {
    for (const name of ['hrms-sim', 'HRMS-Sim', 'hrms-sim.']) {
      const res = await lookupWith(PRIVATE, name, {}, ['hrms-sim:9100']);
      expect(res, name).toMatchObject({ err: null, address: '10.1.2.3', family: 4 });
    }
    expect((await lookupWith(LOOPBACK, 'localhost', { all: true }, ['LOCALHOST:9100'])).address).toEqual(LOOPBACK);
  });

  it.each(['redis', 'postgres', 'x.hrms-sim', 'hrms-sim.evil.example', 'hrms-sim-2', 'hrms'])(
    'still refuses %s, a name that is not listed, when it resolves to a private address',
    async (name) => {
      const res = await lookupWith(PRIVATE, name, {}, ['hrms-sim:9100']);
      expect(res.err).toBeInstanceOf(HostNotAllowedError);
    },
  );

  it('checkUrl holds a listed name to its port: the scheme default when the URL names none', () => {
    const policy = createHostPolicy({ allowHosts: ['hrms-sim:9100', 'hrms-web:443'] });
    for (const raw of ['http://hrms-sim:9100/', 'http://HRMS-Sim.:9100/api', 'https://hrms-web/', 'https://hrms-web:443/']) {
      expect(() => policy.checkUrl(new URL(raw)), raw).not.toThrow();
    }
    for (const raw of ['http://hrms-sim/', 'http://hrms-sim:6379/', 'https://hrms-sim:9101/', 'http://hrms-web/', 'http://hrms-web:8443/']) {
      expect(() => policy.checkUrl(new URL(raw)), raw).toThrow(HostNotAllowedError);
    }
  });

  it('lets a listed IP literal and port through checkUrl in each spelling the URL parser gives it, and no other', () => {
    const policy = createHostPolicy({ allowHosts: ['10.0.0.5:9100', '[::1]:9100', '10.0.0.7:80'] });
    for (const raw of ['http://10.0.0.5:9100/', 'http://167772165:9100/', 'http://[::1]:9100/', 'http://[0::1]:9100/', 'http://10.0.0.7/']) {
      expect(() => policy.checkUrl(new URL(raw)), raw).not.toThrow();
    }
    for (const raw of [
      'http://10.0.0.5/',
      'http://10.0.0.5:6379/',
      'http://[::1]/',
      'https://10.0.0.7/',
      'http://10.0.0.6:9100/',
      'http://127.0.0.1:9100/',
      'http://169.254.169.254/',
      'http://[::2]:9100/',
      'ftp://10.0.0.5:9100/',
    ]) {
      expect(() => policy.checkUrl(new URL(raw)), raw).toThrow(HostNotAllowedError);
    }
  });

  it('without a list, the same names and literals are refused (the control)', async () => {
    expect((await lookupWith(PRIVATE, 'hrms-sim')).err).toBeInstanceOf(HostNotAllowedError);
    expect(() => createHostPolicy().checkUrl(new URL('http://10.0.0.5:9100/'))).toThrow(HostNotAllowedError);
  });

  it('normalizes a host as the URL parser does, and refuses anything but a bare host', () => {
    expect(['hrms-sim', 'HRMS-Sim.', '127.0.0.1', '2130706433', '::1', '[0:0::1]', 'münchen.de'].map(normalizeHost)).toEqual([
      'hrms-sim',
      'hrms-sim',
      '127.0.0.1',
      '127.0.0.1',
      '::1',
      '::1',
      'xn--mnchen-3ya.de',
    ]);
    for (const bad of ['', ' ', 'hrms-sim:9100', 'hrms-sim:80', '*.corp.example', 'http://hrms-sim', 'hrms-sim/api', 'user@hrms-sim', 'a b', '.']) {
      expect(normalizeHost(bad), bad).toBeNull();
    }
  });

  it('reads an entry as a bare host and a port, and refuses one without a port', () => {
    expect(['hrms-sim:9100', 'HRMS-Sim.:9100', '2130706433:80', '[0:0::1]:9100', 'münchen.de:443'].map(normalizeHostPort)).toEqual([
      'hrms-sim:9100',
      'hrms-sim:9100',
      '127.0.0.1:80',
      '[::1]:9100',
      'xn--mnchen-3ya.de:443',
    ]);
    for (const bad of [
      'hrms-sim',
      '127.0.0.1',
      '::1',
      '::1:9100',
      'hrms-sim:',
      'hrms-sim:0',
      'hrms-sim:09100',
      'hrms-sim:65536',
      'http://hrms-sim:9100',
      'hrms-sim:9100/api',
      '*.corp:80',
    ]) {
      expect(normalizeHostPort(bad), bad).toBeNull();
    }
    expect(() => createHostPolicy({ allowHosts: ['hrms-sim'] })).toThrow(TypeError);
  });

  it('the setting: empty by default, a comma-separated list normalized, a bad or port-less entry refused by name', () => {
    expect(loadConfig({}).HRX_HRMS_ALLOWED_HOSTS).toEqual([]);
    expect(loadConfig({ HRX_HRMS_ALLOWED_HOSTS: ' HRMS-Sim:9100 , 10.0.0.5:80,,' }).HRX_HRMS_ALLOWED_HOSTS).toEqual(['hrms-sim:9100', '10.0.0.5:80']);
    for (const bad of ['hrms-sim', '127.0.0.1', 'http://hrms-sim:9100', '*.corp.example:80', 'ok:80,bad:80/path']) {
      expect(() => loadConfig({ HRX_HRMS_ALLOWED_HOSTS: bad }), bad).toThrow(/HRX_HRMS_ALLOWED_HOSTS.*port/);
    }
  });
});
