/** Wiring of the consent feature (see `context.ts`). */
import type { EmployeeService } from '../employees/service';
import type { Infra } from '../infra';
import { createConsentService } from './service';
import { createConsentStore } from './store';

/** Builds the consent store and service. Takes the employee read service (consent names an employee). */
export function wireConsent(infra: Infra, deps: { employees: EmployeeService }) {
  const store = createConsentStore(infra.db.orm);
  return { service: createConsentService({ consents: store, employees: deps.employees }), store };
}
