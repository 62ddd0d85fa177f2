/**
 * Generated secrets (API keys, app secrets, V2 passwords) are safe to pass as command-line
 * values: none starts with `-` (1 in 64 base64url strings would).
 */
import { describe, expect, it } from 'vitest';
import { newSecret } from '../../src/crypto/secrets';

describe('newSecret', () => {
  it('gives 43 base64url characters after the prefix, never a leading dash', () => {
    const secrets = Array.from({ length: 3000 }, () => newSecret());
    for (const s of secrets) {
      expect(s).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{42}$/);
    }
    expect(new Set(secrets).size).toBe(secrets.length);
    expect(newSecret('hrx_')).toMatch(/^hrx_[A-Za-z0-9_][A-Za-z0-9_-]{42}$/);
  });
});
