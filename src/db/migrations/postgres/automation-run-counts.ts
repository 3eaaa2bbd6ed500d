import { historyCount } from './triggers';

/** The key of history_counts that counts an automation's runs (migration …_log_keyset_order). */
const key = (row: 'new' | 'old') => `'automation_runs:' || ${row}.automation_id`;

/** PostgreSQL's form of the automation run count triggers: as hook_runs', removed at zero. */
export const AUTOMATION_RUN_COUNT_TRIGGERS = historyCount('automation_runs', key);
