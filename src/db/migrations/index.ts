import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122225818 } from './Migration20261122225818_initial';

/** Every migration, oldest first. Add a new file and list it here; never edit a shipped one. */
export const MIGRATIONS: MigrationObject[] = [
  { name: 'Migration20261122225818_initial', class: Migration20261122225818 },
];
