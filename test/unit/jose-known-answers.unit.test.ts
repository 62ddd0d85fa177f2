/**
 * Known answers for the V2 JOSE core: published values from the RFCs and the Wycheproof
 * JSON Web Encryption vectors, run through the production code paths.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compactVerify, generateKeyPair, importJWK } from 'jose';
import type { CryptoKey, JWK } from 'jose';
import { decryptRequestJwe, InvalidEncryptedPayload, verifyRequestJws } from '../../src/crypto/jose/request';
import type { DecryptKey } from '../../src/crypto/jose/request';
import { importVendorPublicJwk, modulusBits } from '../../src/crypto/jose/keys';

// RFC 7515 Appendix A.2.1: the RSA public key (n, e) of the RS256 example.
const RFC7515_A2_JWK = {
  kty: 'RSA',
  n: 'ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ',
  e: 'AQAB',
};
// RFC 7515 Appendix A.2.1 (end): the complete JWS Compact Serialization.
const RFC7515_A2_JWS =
  'eyJhbGciOiJSUzI1NiJ9' +
  '.' +
  'eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ' +
  '.' +
  'cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7' +
  'AAuHIm4Bh-0Qc_lF5YKt_O8W2Fp5jujGbds9uJdbF9CUAr7t1dnZcAcQjbKBYNX4' +
  'BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkSjtQBMHlb1L07Qe7K' +
  '0GarZRmB_eSN9383LcOLn6_dO--xi12jzDwusC-eOkHWEsqtFZESc6BfI7noOPqv' +
  'hJ1phCnvWh6IeYI2w9QOYEUipUTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrB' +
  'p0igcN_IoypGlUPQGe77Rw';
const RFC7515_PAYLOAD = '{"iss":"joe",\r\n "exp":1300819380,\r\n "http://example.com/is_root":true}';

// RFC 7638 §3.1: the RSA key of RFC 7517 Appendix A.1 and its published thumbprint.
const RFC7638_JWK = {
  kty: 'RSA',
  n: '0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw',
  e: 'AQAB',
  alg: 'RS256',
};
const RFC7638_THUMBPRINT = 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs';

function flipSignatureByte(jws: string, index: number): string {
  const [h, p, s] = jws.split('.') as [string, string, string];
  const sig = Buffer.from(s, 'base64url');
  sig[index] = (sig[index] as number) ^ 0x01;
  return `${h}.${p}.${sig.toString('base64url')}`;
}

describe('RFC 7515 Appendix A.2 (RS256)', () => {
  it('the published JWS verifies with the published key and yields the published payload', async () => {
    const key = await importJWK(RFC7515_A2_JWK, 'RS256');
    const { payload, protectedHeader } = await compactVerify(RFC7515_A2_JWS, key, { algorithms: ['RS256'] });
    expect(protectedHeader).toEqual({ alg: 'RS256' });
    expect(Buffer.from(payload).toString('utf8')).toBe(RFC7515_PAYLOAD);
    expect(JSON.parse(Buffer.from(payload).toString('utf8'))).toEqual({
      iss: 'joe',
      exp: 1300819380,
      'http://example.com/is_root': true,
    });
    expect(modulusBits(RFC7515_A2_JWK.n)).toBe(2048);
  });

  it('a one-byte change of the signature (first, middle, last byte) fails', async () => {
    const key = await importJWK(RFC7515_A2_JWK, 'RS256');
    for (const i of [0, 128, 255]) {
      const forged = flipSignatureByte(RFC7515_A2_JWS, i);
      expect(forged).not.toBe(RFC7515_A2_JWS);
      await expect(compactVerify(forged, key, { algorithms: ['RS256'] })).rejects.toThrow();
    }
  });

  it('the production JWS path refuses it anyway (no typ JWT, wrong claims)', async () => {
    const vendor = await importVendorPublicJwk(RFC7515_A2_JWK);
    await expect(
      verifyRequestJws(RFC7515_A2_JWS, [{ kid: vendor.kid, publicKey: vendor.verifyKey!, bits: vendor.bits }], { now: 1300819000 }),
    ).rejects.toMatchObject({ name: 'InvalidEncryptedPayload', reason: 'jws: typ must be JWT' });
  });
});

describe('RFC 7638 §3.1 (JWK thumbprint)', () => {
  it('a vendor JWK without kid gets the published thumbprint as kid', async () => {
    const { alg: _alg, ...noAlg } = RFC7638_JWK;
    const vendor = await importVendorPublicJwk(noAlg);
    expect(vendor.kid).toBe(RFC7638_THUMBPRINT);
    expect(vendor.bits).toBe(2048);
    expect(vendor.jwk).toEqual({ kty: 'RSA', n: RFC7638_JWK.n, e: 'AQAB', kid: RFC7638_THUMBPRINT });
    // An explicit kid is kept.
    expect((await importVendorPublicJwk({ ...RFC7638_JWK, kid: '2011-04-29' })).kid).toBe('2011-04-29');
  });
});

// ---------------------------------------------------------------------------------------------
// Wycheproof json_web_encryption_test.json
// ---------------------------------------------------------------------------------------------

interface WycheproofTest {
  tcId: number;
  comment: string;
  jwe: string;
  pt?: string;
  result: 'valid' | 'invalid' | 'acceptable';
  flags: string[];
}
interface WycheproofGroup {
  comment: string;
  private: Record<string, unknown>;
  tests: WycheproofTest[];
}
const WYCHEPROOF = JSON.parse(readFileSync('/work/shared/testvectors/wycheproof/json_web_encryption_test.json', 'utf8')) as {
  numberOfTests: number;
  testGroups: WycheproofGroup[];
};

function headerOf(jwe: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(Buffer.from(jwe.split('.')[0] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** The single shape the production path may accept: a valid RSA-OAEP-256 + A256GCM vector. */
function isOurProfile(t: WycheproofTest): boolean {
  const h = headerOf(t.jwe);
  return t.result === 'valid' && h?.alg === 'RSA-OAEP-256' && h?.enc === 'A256GCM' && !t.jwe.trimStart().startsWith('{');
}

async function importPrivateRsa(jwk: Record<string, unknown>): Promise<CryptoKey | undefined> {
  if (jwk.kty !== 'RSA') return undefined;
  const { alg: _a, use: _u, key_ops: _k, kid: _kid, ...material } = jwk;
  try {
    return (await importJWK(material as JWK, 'RSA-OAEP-256')) as CryptoKey;
  } catch {
    return undefined;
  }
}

describe('Wycheproof JSON Web Encryption vectors through decryptRequestJwe', () => {
  it('accepts exactly the valid RSA-OAEP-256/A256GCM vector and refuses every other one', async () => {
    const all = WYCHEPROOF.testGroups.flatMap((g) => g.tests);
    expect(all.length).toBe(WYCHEPROOF.numberOfTests);
    // A fallback RSA key for groups whose key is not RSA: the vector still goes through the same
    // path, under the group's kid, so the header checks (not a missing key) decide.
    const fallback = (await generateKeyPair('RSA-OAEP-256', { modulusLength: 2048 })).privateKey;
    const counts = { total: 0, accepted: 0, refused: 0, refusedRelaxed: 0, rsaKeyImported: 0 };
    const acceptedIds: number[] = [];
    const reasons = new Map<string, number>();
    for (const group of WYCHEPROOF.testGroups) {
      const imported = await importPrivateRsa(group.private);
      const key: DecryptKey = {
        kid: typeof group.private.kid === 'string' ? group.private.kid : 'wycheproof',
        privateKey: imported ?? fallback,
      };
      for (const t of group.tests) {
        counts.total++;
        if (imported) counts.rsaKeyImported++;
        // 1. Production rules (cty JWT required): nothing in the file carries cty, all refused.
        await expect(decryptRequestJwe(t.jwe, [key])).rejects.toBeInstanceOf(InvalidEncryptedPayload);
        counts.refused++;
        // 2. Same path with only the cty requirement relaxed: every check except cty is live.
        let outcome: Uint8Array | InvalidEncryptedPayload;
        try {
          outcome = (await decryptRequestJwe(t.jwe, [key], { requireCty: false })).plaintext;
        } catch (err) {
          expect(err).toBeInstanceOf(InvalidEncryptedPayload);
          outcome = err as InvalidEncryptedPayload;
        }
        if (isOurProfile(t)) {
          expect(outcome, `tcId ${t.tcId} must decrypt`).toBeInstanceOf(Uint8Array);
          expect(Buffer.from(outcome as Uint8Array).toString('hex')).toBe(t.pt);
          counts.accepted++;
          acceptedIds.push(t.tcId);
        } else {
          expect(outcome, `tcId ${t.tcId} (${t.result} ${t.comment}) must be refused`).toBeInstanceOf(InvalidEncryptedPayload);
          const reason = (outcome as InvalidEncryptedPayload).reason;
          reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
          counts.refusedRelaxed++;
        }
      }
    }
    console.log('wycheproof JWE:', counts, 'accepted tcIds', acceptedIds, 'refusal reasons', Object.fromEntries(reasons));
    expect(counts.total).toBe(139);
    expect(counts.accepted).toBe(1);
    expect(counts.refusedRelaxed).toBe(138);
    expect(counts.refused).toBe(139);
    // The accepted vector is the RSA-OAEP-256/A256GCM one, and its plaintext is "foo".
    const only = all.find((t) => t.tcId === acceptedIds[0]);
    expect(Buffer.from(only?.pt ?? '', 'hex').toString('utf8')).toBe('foo');
    // Refusals come from the header checks for foreign algorithms and from the compact parser.
    expect(reasons.get('jwe: alg not allowed') ?? 0).toBeGreaterThan(50);
    expect(reasons.get('jwe: enc not allowed') ?? 0).toBeGreaterThan(0);
  });

  it('tampering the accepted vector (each part, one byte) is refused by decryption', async () => {
    const group = WYCHEPROOF.testGroups.find((g) => g.tests.some(isOurProfile));
    const t = group?.tests.find(isOurProfile);
    expect(t).toBeDefined();
    const privateKey = await importPrivateRsa(group!.private);
    const key: DecryptKey = { kid: 'k', privateKey: privateKey! };
    const parts = t!.jwe.split('.');
    for (const i of [1, 2, 3, 4]) {
      const bytes = Buffer.from(parts[i] ?? '', 'base64url');
      bytes[0] = (bytes[0] as number) ^ 0x80;
      const forged = parts.map((p, j) => (j === i ? bytes.toString('base64url') : p)).join('.');
      await expect(decryptRequestJwe(forged, [key], { requireCty: false })).rejects.toMatchObject({ reason: 'jwe: decryption failed' });
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Wycheproof json_web_signature_test.json: the RS256 primitive our JWS check relies on
// ---------------------------------------------------------------------------------------------

describe('Wycheproof JSON Web Signature vectors through importVendorPublicJwk + compactVerify (RS256)', () => {
  it('accepts the valid RS256 vectors and refuses every other vector with an RSA key', async () => {
    const file = JSON.parse(readFileSync('/work/shared/testvectors/wycheproof/json_web_signature_test.json', 'utf8')) as {
      testGroups: { comment: string; public?: Record<string, unknown>; tests: { tcId: number; jws: string; result: string; comment: string }[] }[];
    };
    const counts = { accepted: 0, refused: 0, refusedAtKeyImport: 0, skippedNonRsa: 0 };
    for (const g of file.testGroups) {
      if (g.public?.kty !== 'RSA') {
        counts.skippedNonRsa += g.tests.length;
        continue;
      }
      // As in production: a key bound to another alg (e.g. PS512) can never be registered, so
      // its vectors (including valid RS256 signatures by it, Wycheproof "WrongPrimitive") fail;
      // a key restricted to encryption (use enc / key_ops encrypt) gets no verify key.
      const vendor = await importVendorPublicJwk(g.public).catch(() => undefined);
      for (const t of g.tests) {
        const alg = headerOf(t.jws)?.alg;
        const keyAlg = g.public.alg ?? 'RS256';
        const keyForSig = g.public.use !== 'enc' && (!Array.isArray(g.public.key_ops) || g.public.key_ops.includes('verify'));
        const mustAccept = t.result === 'valid' && alg === 'RS256' && keyAlg === 'RS256' && keyForSig && !t.jws.trimStart().startsWith('{');
        if (!vendor?.verifyKey) counts.refusedAtKeyImport++;
        const ok =
          vendor?.verifyKey !== undefined &&
          (await compactVerify(t.jws, vendor.verifyKey, { algorithms: ['RS256'] }).then(
            () => true,
            () => false,
          ));
        expect(ok, `tcId ${t.tcId} ${t.result} ${t.comment}`).toBe(mustAccept);
        if (ok) counts.accepted++;
        else counts.refused++;
      }
    }
    console.log('wycheproof JWS (RSA groups):', counts);
    expect(counts.accepted).toBeGreaterThanOrEqual(6);
    expect(counts.refused).toBeGreaterThan(200);
  });
});
