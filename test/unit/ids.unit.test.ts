import { describe, expect, it } from 'vitest';
import { isUuid } from '../../src/domain/ids';

describe('isUuid', () => {
  it('accepts the canonical 8-4-4-4-12 form in either case', () => {
    expect(isUuid('0b7e2a34-5c1d-4f6a-9b8c-1d2e3f4a5b6c')).toBe(true);
    expect(isUuid('0B7E2A34-5C1D-4F6A-9B8C-1D2E3F4A5B6C')).toBe(true);
    expect(isUuid('00000000-0000-0000-0000-000000000000')).toBe(true);
  });
  it('refuses anything else, including 36 characters of hex and hyphens in the wrong places', () => {
    for (const s of [
      '',
      'not-a-uuid',
      '-'.repeat(36),
      '0b7e2a345c1d4f6a9b8c1d2e3f4a5b6c',
      '0b7e2a34-5c1d-4f6a-9b8c-1d2e3f4a5b6c ',
      '{0b7e2a34-5c1d-4f6a-9b8c-1d2e3f4a5b6c}',
      '0b7e2a34-5c1d-4f6a-9b8c1-d2e3f4a5b6c',
      '0g7e2a34-5c1d-4f6a-9b8c-1d2e3f4a5b6c',
    ]) {
      expect(isUuid(s)).toBe(false);
    }
  });
});
