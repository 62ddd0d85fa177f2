/**
 * The committed migrations, in order. Listed explicitly (not discovered by glob) so the same list
 * runs under tsx, vitest and any bundling, on embedded and external PostgreSQL alike. A function
 * of the keys, which migrations that encrypt existing rows need (./keys.ts; null: none given).
 */
import { Migration20261121000000 } from './Migration20261121000000';
import { Migration20261121010000 } from './Migration20261121010000';
import { Migration20261121020000 } from './Migration20261121020000';
import { Migration20261121040000 } from './Migration20261121040000';
import { Migration20261121050000 } from './Migration20261121050000';
import { Migration20261121060000 } from './Migration20261121060000';
import { Migration20261123010000 } from './Migration20261123010000';
import { Migration20261123020000 } from './Migration20261123020000';
import { Migration20261123060000 } from './Migration20261123060000';
import { Migration20261123110000 } from './Migration20261123110000';
import { Migration20261123120000 } from './Migration20261123120000';
import { Migration20261123150000 } from './Migration20261123150000';
import { Migration20261123160000 } from './Migration20261123160000';
import { migration20261123190000 } from './Migration20261123190000';
import { Migration20261124100000 } from './Migration20261124100000';
import { Migration20261124110000 } from './Migration20261124110000';
import { Migration20261127010000 } from './Migration20261127010000';
import { Migration20261127020000 } from './Migration20261127020000';
import { Migration20261127030000 } from './Migration20261127030000';
import { Migration20261127050000 } from './Migration20261127050000';
import { Migration20261127060000 } from './Migration20261127060000';
import { Migration20261128030000 } from './Migration20261128030000';
import { Migration20261128060000 } from './Migration20261128060000';
import { Migration20261128130000 } from './Migration20261128130000';
import { Migration20261129010000 } from './Migration20261129010000';
import { Migration20261206010000 } from './Migration20261206010000';
import { Migration20261206020000 } from './Migration20261206020000';
import { Migration20261206030000 } from './Migration20261206030000';
import { Migration20261206040000 } from './Migration20261206040000';
import { Migration20261206050000 } from './Migration20261206050000';
import { Migration20261206060000 } from './Migration20261206060000';
import { Migration20261206070000 } from './Migration20261206070000';
import { Migration20261206071500 } from './Migration20261206071500';
import { Migration20261206090000 } from './Migration20261206090000';
import type { MigrationKeys } from './keys';

export const migrationsList = (keys: MigrationKeys | null) => [
  { name: 'Migration20261121000000', class: Migration20261121000000 },
  { name: 'Migration20261121010000', class: Migration20261121010000 },
  { name: 'Migration20261121020000', class: Migration20261121020000 },
  { name: 'Migration20261121040000', class: Migration20261121040000 },
  { name: 'Migration20261121050000', class: Migration20261121050000 },
  { name: 'Migration20261121060000', class: Migration20261121060000 },
  { name: 'Migration20261123010000', class: Migration20261123010000 },
  { name: 'Migration20261123020000', class: Migration20261123020000 },
  { name: 'Migration20261123060000', class: Migration20261123060000 },
  { name: 'Migration20261123110000', class: Migration20261123110000 },
  { name: 'Migration20261123120000', class: Migration20261123120000 },
  { name: 'Migration20261123150000', class: Migration20261123150000 },
  { name: 'Migration20261123160000', class: Migration20261123160000 },
  { name: 'Migration20261123190000', class: migration20261123190000(keys) },
  { name: 'Migration20261124100000', class: Migration20261124100000 },
  { name: 'Migration20261124110000', class: Migration20261124110000 },
  { name: 'Migration20261127010000', class: Migration20261127010000 },
  { name: 'Migration20261127020000', class: Migration20261127020000 },
  { name: 'Migration20261127030000', class: Migration20261127030000 },
  { name: 'Migration20261127050000', class: Migration20261127050000 },
  { name: 'Migration20261127060000', class: Migration20261127060000 },
  { name: 'Migration20261128030000', class: Migration20261128030000 },
  { name: 'Migration20261128060000', class: Migration20261128060000 },
  { name: 'Migration20261128130000', class: Migration20261128130000 },
  { name: 'Migration20261129010000', class: Migration20261129010000 },
  { name: 'Migration20261206010000', class: Migration20261206010000 },
  { name: 'Migration20261206020000', class: Migration20261206020000 },
  { name: 'Migration20261206030000', class: Migration20261206030000 },
  { name: 'Migration20261206040000', class: Migration20261206040000 },
  { name: 'Migration20261206050000', class: Migration20261206050000 },
  { name: 'Migration20261206060000', class: Migration20261206060000 },
  { name: 'Migration20261206070000', class: Migration20261206070000 },
  { name: 'Migration20261206071500', class: Migration20261206071500 },
  { name: 'Migration20261206090000', class: Migration20261206090000 },
];
