/**
 * Startup checks of the admin token (docs/settings.md: no published default) and the source
 * address of the failed-authentication limit (auth/source.ts).
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sourceAddress, sourceKey } from '../../src/auth/source';
import { ADMIN_TOKEN_PLACEHOLDER, ConfigError, loadConfig } from '../../src/config';

describe('HRX_ADMIN_TOKEN', () => {
  it('refuses the old docker-compose placeholder with a clear error that does not echo it', () => {
    expect(() => loadConfig({ HRX_ADMIN_TOKEN: ADMIN_TOKEN_PLACEHOLDER })).toThrow(ConfigError);
    try {
      loadConfig({ HRX_ADMIN_TOKEN: ADMIN_TOKEN_PLACEHOLDER });
    } catch (err) {
      expect((err as Error).message).toMatch(/^Invalid configuration: HRX_ADMIN_TOKEN is the published placeholder/);
      expect((err as Error).message).not.toContain(ADMIN_TOKEN_PLACEHOLDER);
    }
  });

  it('refuses a token shorter than 24 characters; accepts 24 and more, or none', () => {
    expect(() => loadConfig({ HRX_ADMIN_TOKEN: 'x'.repeat(23) })).toThrow('Invalid configuration: HRX_ADMIN_TOKEN must be at least 24 characters');
    expect(loadConfig({ HRX_ADMIN_TOKEN: 'x'.repeat(24) }).HRX_ADMIN_TOKEN).toBe('x'.repeat(24));
    const token = randomBytes(24).toString('base64');
    expect(loadConfig({ HRX_ADMIN_TOKEN: token }).HRX_ADMIN_TOKEN).toBe(token);
    expect(loadConfig({}).HRX_ADMIN_TOKEN).toBeUndefined();
  });

  it('failure limit defaults: 20 a minute, proxy not trusted', () => {
    const c = loadConfig({});
    expect([c.HRX_AUTH_FAILURE_LIMIT, c.HRX_AUTH_FAILURE_WINDOW_MS, c.HRX_TRUST_PROXY]).toEqual([20, 60_000, false]);
  });
});

describe('source address', () => {
  const req = (remoteAddress: string, xff?: string) => ({ socket: { remoteAddress }, headers: xff ? { 'x-forwarded-for': xff } : {} });

  it('is the socket peer unless the proxy is trusted; then the last X-Forwarded-For entry', () => {
    expect(sourceAddress(req('10.0.0.5', '1.2.3.4'), false)).toBe('10.0.0.5');
    expect(sourceAddress(req('10.0.0.5', '9.9.9.9, 1.2.3.4'), true)).toBe('1.2.3.4');
    // A header a client forged before the proxy appended the real address does not count.
    expect(sourceAddress(req('10.0.0.5', 'forged, 1.2.3.4'), true)).toBe('1.2.3.4');
    expect(sourceAddress(req('10.0.0.5', 'not-an-ip'), true)).toBe('10.0.0.5');
    expect(sourceAddress(req('10.0.0.5'), true)).toBe('10.0.0.5');
  });

  it('IPv4-mapped IPv6 is IPv4; IPv6 counts by its /64', () => {
    expect(sourceKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(sourceKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(sourceKey('2001:DB8:1:2:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(sourceKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(sourceKey('::1')).toBe('0:0:0:0::/64');
    expect(sourceKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });
});
