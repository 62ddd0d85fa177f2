/**
 * Persistence of employee consents (decisions §7): append-only rows; the latest unexpired,
 * unrevoked one is in force (the read path checks it in SQL, see employees/store).
 */
import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Consent } from '../db/entities';

export interface ConsentStore {
  /**
   * The client org and employee a vendor may record a consent for: its approved connection with
   * `clientOrgUuid` and the (not removed) employee `employeeId`. null fields when absent.
   */
  target(vendorOrgId: number, clientOrgUuid: string, employeeId: string): Promise<{ clientOrgId: number | null; employeeExists: boolean }>;
  append(c: Omit<Consent, 'id' | 'createdAt' | 'revokedAt'>): Promise<Consent>;
}

/** Builds the consent store over `orm`. */
export function createConsentStore(orm: MikroORM): ConsentStore {
  return {
    async target(vendorOrgId, clientOrgUuid, employeeId) {
      const [row] = (await orm.em.getConnection().execute(
        `select co.id as client_org_id,
                exists (select 1 from employees e where e.org_id = co.id and e.employee_id = ? and e.removed_at is null) as employee_exists
           from orgs co join connections c on c.client_org_id = co.id and c.vendor_org_id = ? and c.status = 'approved'
          where co.uuid = ?::uuid limit 1`,
        [employeeId, vendorOrgId, clientOrgUuid],
      )) as { client_org_id: number; employee_exists: boolean }[];
      return { clientOrgId: row?.client_org_id ?? null, employeeExists: row?.employee_exists === true };
    },
    async append(c) {
      const em = orm.em.fork();
      const consent = em.create(Consent, { ...c, id: randomUUID(), createdAt: new Date(), revokedAt: null });
      await em.persistAndFlush(consent);
      return consent;
    },
  };
}
