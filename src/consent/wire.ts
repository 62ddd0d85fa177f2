/** Wiring of the consent feature (see `context.ts`). */
import type { EmployeeService } from '../employees/service';
import type { EventService } from '../events/service';
import type { Infra } from '../infra';
import { createConsentService } from './service';
import { createConsentStore } from './store';

/**
 * Builds the consent store and service. Takes the employee read service (consent names an
 * employee) and the event service (`consent.revoked`, written in the withdrawal's transaction).
 */
export function wireConsent(infra: Infra, deps: { employees: EmployeeService; events: EventService }) {
  const store = createConsentStore(infra.db.orm, infra.cipher);
  return {
    service: createConsentService({ consents: store, employees: deps.employees, transactor: infra.transactor, events: deps.events }),
    store,
  };
}
