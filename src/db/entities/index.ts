/**
 * Every MikroORM entity hrx has, in one place by one convention: one file per area in this
 * folder (`core.ts`: orgs, keys, connections, HRMS configurations, employees, sync runs,
 * consents, audit; `external.ts`: the V2 keys and Basic credentials; `sdk.ts`: SDK tokens and
 * Connect users; `health.ts`: connection health and syncs on demand; `idempotency.ts`: idempotency keys; `credentials.ts`: issued credentials; `pay.ts`: pay history), collected here. Features import their entities from `db/entities`; the
 * entities import nothing of hrx, so the dependency points down.
 */
import { CORE_ENTITIES } from './core';
import { CREDENTIAL_ENTITIES } from './credentials';
import { EXTERNAL_ENTITIES } from './external';
import { HEALTH_ENTITIES } from './health';
import { IDEMPOTENCY_ENTITIES } from './idempotency';
import { PAY_ENTITIES } from './pay';
import { SDK_ENTITIES } from './sdk';

export * from './core';
export * from './credentials';
export * from './external';
export * from './health';
export * from './idempotency';
export * from './pay';
export * from './sdk';

/** Every entity schema, for the ORM configuration. */
export const ALL_ENTITIES = [
  ...CORE_ENTITIES,
  ...EXTERNAL_ENTITIES,
  ...SDK_ENTITIES,
  ...HEALTH_ENTITIES,
  ...IDEMPOTENCY_ENTITIES,
  ...CREDENTIAL_ENTITIES,
  ...PAY_ENTITIES,
];
