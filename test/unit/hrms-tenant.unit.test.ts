/**
 * The tenant a connector's budget is scoped by (docs/behaviour.md "Live reads and the HRMS
 * budget", src/hrms/tenant.ts): by host, and on a host every company shares by host and client id.
 */
import { describe, expect, it } from 'vitest';
import { tenantByClientId, tenantByHost } from '../../src/hrms/tenant';
import { HRMS_CATALOG } from '../../src/hrms/catalog';
import type { HrmsAccess } from '../../src/hrms/connector';

const access = (hrms_host: string, client_id?: string): HrmsAccess => ({
  credentials: { grant_type: 'client_credentials', hrms_host, client_id, client_secret: 's' },
  apiConfigs: [],
});

describe('HRMS tenants', () => {
  it('by host: one budget per origin, whatever the path or case', () => {
    expect(tenantByHost(access('https://ACME.hrms.example/api/'))).toBe('https://acme.hrms.example');
    expect(tenantByHost(access('not a url'))).toBe('not a url');
  });

  it('on a shared host: two companies get two budgets, one company one', () => {
    const a = tenantByClientId(access('https://api.shared.example', 'company-a'));
    expect(a).toBe('https://api.shared.example#company-a');
    expect(tenantByClientId(access('https://api.shared.example/v1', 'company-a'))).toBe(a);
    expect(tenantByClientId(access('https://api.shared.example', 'company-b'))).not.toBe(a);
  });

  it("every product scopes a company it shares a host with apart (two client ids on one host are two tenants, or the host is the company's own)", () => {
    for (const p of HRMS_CATALOG) {
      if (p.definition.tenantOf !== tenantByClientId) continue;
      const one = p.definition.tenantOf(access('https://api.shared.example', 'x'));
      expect(one, p.hrmsId).not.toBe(p.definition.tenantOf(access('https://api.shared.example', 'y')));
    }
    expect(HRMS_CATALOG.some((p) => p.definition.tenantOf === tenantByClientId)).toBe(true);
  });
});
