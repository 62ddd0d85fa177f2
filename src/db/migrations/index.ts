/**
 * The committed migrations, in order. Listed explicitly (not discovered by glob) so the same list
 * runs under tsx, vitest and any bundling, on embedded and external PostgreSQL alike.
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

export const MIGRATIONS = [
  { name: 'Migration20261121000000', class: Migration20261121000000 },
  { name: 'Migration20261121010000', class: Migration20261121010000 },
  { name: 'Migration20261121020000', class: Migration20261121020000 },
  { name: 'Migration20261121040000', class: Migration20261121040000 },
  { name: 'Migration20261121050000', class: Migration20261121050000 },
  { name: 'Migration20261121060000', class: Migration20261121060000 },
  { name: 'Migration20261123010000', class: Migration20261123010000 },
  { name: 'Migration20261123020000', class: Migration20261123020000 },
  { name: 'Migration20261123060000', class: Migration20261123060000 },
];
