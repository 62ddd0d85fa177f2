import { describe, expect, it } from 'vitest';
import { apiConfigHost, type HrmsAccess } from '../../src/hrms/connector';

const access = (apiConfigs: HrmsAccess['apiConfigs']): HrmsAccess => ({
  credentials: { grant_type: 'client_credentials', hrms_host: 'https://acme.keka.com' },
  apiConfigs,
});
const fallback = (hostname: string | null) => `derived-from:${hostname}`;

describe('apiConfigHost (docs/behaviour.md "HRMS hosts": api_configs entries name other endpoints of the same HRMS)', () => {
  it("takes the named entry's hrms_host", () => {
    const a = access([
      { api_id: 'api', access_credentials: { grant_type: 'client_credentials', hrms_host: 'https://data.example' } },
      { api_id: 'token', access_credentials: { grant_type: 'client_credentials', hrms_host: 'https://token.example' } },
    ]);
    expect(apiConfigHost(a, 'token', fallback)).toBe('https://token.example');
    expect(apiConfigHost(a, 'api', fallback)).toBe('https://data.example');
  });

  it("falls back to the product's default, derived from the main host, without the entry or with an empty host", () => {
    expect(apiConfigHost(access([]), 'token', fallback)).toBe('derived-from:acme.keka.com');
    expect(apiConfigHost(access([{ api_id: 'token', access_credentials: { grant_type: 'client_credentials', hrms_host: '' } }]), 'token', fallback)).toBe(
      'derived-from:acme.keka.com',
    );
    expect(
      apiConfigHost(
        access([{ api_id: 'api', access_credentials: { grant_type: 'client_credentials', hrms_host: 'https://data.example' } }]),
        'token',
        fallback,
      ),
    ).toBe('derived-from:acme.keka.com');
  });

  it('gives the fallback null for a main host that is not a URL', () => {
    expect(apiConfigHost({ credentials: { grant_type: 'client_credentials', hrms_host: 'not a url' }, apiConfigs: [] }, 'token', fallback)).toBe(
      'derived-from:null',
    );
  });
});
