/**
 * The verifier's status check (src/credentials/status-check.ts, docs/credentials.md "Verifying"):
 * the bit lookup agrees with `@sd-jwt/jwt-status-list`'s decoding for every width; a status list
 * token with another `sub`, `typ` or signer, HS256, or past its `exp` is refused and never kept; a
 * good one is kept for its `ttl`, never past its `exp`. Tokens signed with real P-256 keys.
 */
import { describe, expect, it } from 'vitest';
import { inflateSync } from 'node:zlib';
import { createHeaderAndPayload, StatusList } from '@sd-jwt/jwt-status-list';
import { generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { createStatusCheck, statusAt, StatusError } from '../../src/credentials/status-check';

const URI = 'https://hrx.example/credentials/status/0';
const NOW = 1_800_000_000;

async function token(key: CryptoKey, o: { bits?: number[]; sub?: string; typ?: string; exp?: number; ttl?: number } = {}): Promise<string> {
  const bits = o.bits ?? new Array<number>(1024).fill(0);
  const { header, payload } = createHeaderAndPayload(
    new StatusList(bits, 1),
    { sub: o.sub ?? URI, iat: NOW - 10, exp: o.exp ?? NOW + 86_400, ttl: o.ttl ?? 300 },
    { alg: 'ES256', typ: 'statuslist+jwt', kid: 'k1' },
  );
  // The library always writes `typ: statuslist+jwt`; a forged one may say anything.
  return new SignJWT(payload).setProtectedHeader({ ...header, typ: o.typ ?? header.typ }).sign(key);
}

const reasonOf = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: unknown) => (e instanceof StatusError ? e.reason : `other: ${String(e)}`),
  );

describe('statusAt', () => {
  it('reads each status as @sd-jwt/jwt-status-list decodes it, for 1, 2, 4 and 8 bits', () => {
    for (const width of [1, 2, 4, 8] as const) {
      const values = Array.from({ length: 512 }, (_, i) => (i * 7919 + width) % 2 ** width);
      const list = new StatusList(values, width);
      const bytes = inflateSync(Buffer.from(list.compressStatusList(), 'base64url'));
      const decoded = StatusList.decompressStatusList(list.compressStatusList(), width);
      expect(values.map((_, i) => statusAt(bytes, width, i))).toStrictEqual(values.map((_, i) => decoded.getStatus(i)));
      expect(values.some((v) => v !== 0)).toBe(true);
    }
  });

  it('refuses an index outside the list', () => {
    const bytes = new Uint8Array(2);
    expect(() => statusAt(bytes, 1, 16)).toThrow(StatusError);
    expect(() => statusAt(bytes, 1, -1)).toThrow(StatusError);
    expect(() => statusAt(bytes, 1, 1.5)).toThrow(StatusError);
    expect(statusAt(Uint8Array.of(0, 0x80), 1, 15)).toBe(1);
  });
});

describe('createStatusCheck', () => {
  it('refuses a list with another sub, typ or signer, HS256 or past exp, and keeps none of them', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const other = await generateKeyPair('ES256');
    const hs = await new SignJWT({ sub: URI, status_list: { bits: 1, lst: 'eNrLAQAAhwCH' } })
      .setProtectedHeader({ alg: 'HS256', typ: 'statuslist+jwt', kid: 'k1' })
      .sign(new Uint8Array(32));
    const bad = [
      await token(privateKey, { sub: 'https://hrx.example/credentials/status/1' }),
      await token(privateKey, { typ: 'JWT' }),
      await token(other.privateKey),
      hs,
      await token(privateKey, { exp: NOW - 1 }),
    ];
    const good = await token(privateKey);
    let served = bad[0]!;
    let fetches = 0;
    const check = createStatusCheck({ fetch: () => (fetches++, Promise.resolve(served)), key: () => Promise.resolve(publicKey), clock: () => NOW * 1000 });
    for (const t of bad) {
      served = t;
      expect([bad.indexOf(t), await reasonOf(check.check(URI, 3, NOW))]).toStrictEqual([bad.indexOf(t), 'invalid']);
    }
    expect(fetches).toBe(bad.length);
    served = good;
    expect(await reasonOf(check.check(URI, 3, NOW))).toBe('ok');
    expect(fetches).toBe(bad.length + 1);
  });

  it('keeps a list for its ttl, never past its exp, and reads the bit of the list it keeps', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const bits = new Array<number>(1024).fill(0);
    const clean = await token(privateKey);
    bits[3] = 1;
    const revoked = await token(privateKey, { bits });
    let served = clean;
    let fetches = 0;
    let wall = NOW * 1000;
    const check = createStatusCheck({ fetch: () => (fetches++, Promise.resolve(served)), key: () => Promise.resolve(publicKey), clock: () => wall });
    expect(await reasonOf(check.check(URI, 3, NOW))).toBe('ok');
    served = revoked;
    wall += 299_000;
    expect(await reasonOf(check.check(URI, 3, NOW))).toBe('ok');
    expect(fetches).toBe(1);
    wall += 1_000;
    expect(await reasonOf(check.check(URI, 3, NOW))).toBe('revoked');
    expect(await reasonOf(check.check(URI, 4, NOW))).toBe('ok');
    expect(fetches).toBe(2);

    // exp 10 s ahead, ttl 300: fetched again after 10 s.
    const short = createStatusCheck({
      fetch: () => (fetches++, Promise.resolve(served)),
      key: () => Promise.resolve(publicKey),
      clock: () => wall,
    });
    served = await token(privateKey, { exp: NOW + 10 });
    wall = NOW * 1000;
    await short.check(URI, 4, NOW);
    wall += 10_000;
    await short.check(URI, 4, NOW);
    expect(fetches).toBe(4);
  });

  it('does not keep a list without ttl, and checks a kept list against the verification time', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    let served = await token(privateKey, { ttl: 0 });
    let fetches = 0;
    const check = createStatusCheck({ fetch: () => (fetches++, Promise.resolve(served)), key: () => Promise.resolve(publicKey), clock: () => NOW * 1000 });
    await check.check(URI, 1, NOW);
    await check.check(URI, 1, NOW);
    expect(fetches).toBe(2);
    // Kept (ttl 300), then asked about a time past its exp (an offline check): fetched again, and refused.
    served = await token(privateKey, { exp: NOW + 1000 });
    await check.check(URI, 1, NOW);
    expect(await reasonOf(check.check(URI, 1, NOW + 1000))).toBe('invalid');
    expect(fetches).toBe(4);
  });
});
