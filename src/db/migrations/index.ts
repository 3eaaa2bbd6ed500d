import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122225818 } from './Migration20261122225818_initial';
import { Migration20261122235900 } from './Migration20261122235900_task_status_counts';
import { Migration20261123050000 } from './Migration20261123050000_token_usage_totals';
import { Migration20261123051000 } from './Migration20261123051000_history_counts';
import { Migration20261123060000 } from './Migration20261123060000_budgets';
import { Migration20261123063000 } from './Migration20261123063000_task_messages';
import { Migration20261123064000 } from './Migration20261123064000_project_steerers';
import { Migration20261123072000 } from './Migration20261123072000_task_source_thread';
import { Migration20261123072500 } from './Migration20261123072500_chat_feedback';
import { Migration20261123073000 } from './Migration20261123073000_agent_requests';
import { Migration20261123073500 } from './Migration20261123073500_workers';
import { Migration20261125160000 } from './Migration20261125160000_fleet_lock_order';
import { Migration20261125170000 } from './Migration20261125170000_approvals_by_requester';
import { Migration20261125200100 } from './Migration20261125200100_wake_workers';
import { Migration20261125200200 } from './Migration20261125200200_chain_blockers';
import { Migration20261125200210 } from './Migration20261125200210_task_keyset_order';
import { Migration20261125200220 } from './Migration20261125200220_event_count_stripes';
import { Migration20261125200400 } from './Migration20261125200400_conflict_radar';
import { Migration20261125200500 } from './Migration20261125200500_task_rooms';
import { Migration20261125200600 } from './Migration20261125200600_agent_backends';
import { Migration20261125200700 } from './Migration20261125200700_automations';

/** Every migration, oldest first. Add a new file and list it here; never edit a shipped one. */
export const MIGRATIONS: MigrationObject[] = [
  { name: 'Migration20261122225818_initial', class: Migration20261122225818 },
  { name: 'Migration20261122235900_task_status_counts', class: Migration20261122235900 },
  { name: 'Migration20261123050000_token_usage_totals', class: Migration20261123050000 },
  { name: 'Migration20261123051000_history_counts', class: Migration20261123051000 },
  { name: 'Migration20261123060000_budgets', class: Migration20261123060000 },
  { name: 'Migration20261123063000_task_messages', class: Migration20261123063000 },
  { name: 'Migration20261123064000_project_steerers', class: Migration20261123064000 },
  { name: 'Migration20261123072000_task_source_thread', class: Migration20261123072000 },
  { name: 'Migration20261123072500_chat_feedback', class: Migration20261123072500 },
  { name: 'Migration20261123073000_agent_requests', class: Migration20261123073000 },
  { name: 'Migration20261123073500_workers', class: Migration20261123073500 },
  { name: 'Migration20261125160000_fleet_lock_order', class: Migration20261125160000 },
  { name: 'Migration20261125170000_approvals_by_requester', class: Migration20261125170000 },
  { name: 'Migration20261125200100_wake_workers', class: Migration20261125200100 },
  { name: 'Migration20261125200200_chain_blockers', class: Migration20261125200200 },
  { name: 'Migration20261125200210_task_keyset_order', class: Migration20261125200210 },
  { name: 'Migration20261125200220_event_count_stripes', class: Migration20261125200220 },
  { name: 'Migration20261125200400_conflict_radar', class: Migration20261125200400 },
  { name: 'Migration20261125200500_task_rooms', class: Migration20261125200500 },
  { name: 'Migration20261125200600_agent_backends', class: Migration20261125200600 },
  { name: 'Migration20261125200700_automations', class: Migration20261125200700 },
];
