import { PortableMigration } from './portable-migration';
import { TOKEN_USAGE_TOTALS_TRIGGERS as POSTGRES_TRIGGERS } from './postgres/triggers';

/*
 * Token totals kept exact by triggers, so get_token_usage reads a few rows however much usage
 * history there is (it used to sum every usage row: 78 ms at 100k tasks, ×30 for ×10 data).
 * Triggers run inside SQLite, so every process's writes, and project deletion, keep them right.
 *
 * - token_usage_totals: one row per (project, task, agent), with tokens and entries (row count).
 * - token_usage_project_totals: one row per project, with tokens, entries and `task_agent_rows`, the
 *   number of its (task, agent) rows above, so a page of a project's breakdown knows its total
 *   without counting.
 * A missing project, task or agent is stored as '' because SQLite keys treat NULLs as distinct;
 * the repository turns '' back into null. Rows whose entries reach 0 are removed.
 */

const key = (row: 'new' | 'old') => `coalesce(${row}.project_id, ''), coalesce(${row}.task_id, ''), coalesce(${row}.agent_id, '')`;
const matches = (row: 'new' | 'old') =>
  `project_id = coalesce(${row}.project_id, '') and task_id = coalesce(${row}.task_id, '') and agent_id = coalesce(${row}.agent_id, '')`;

/** Statements that add the usage row `new` to the totals. */
function addRow(): string {
  return `
    insert into token_usage_project_totals (project_id, tokens, entries, task_agent_rows) values (coalesce(new.project_id, ''), new.tokens, 1, 0)
      on conflict (project_id) do update set tokens = tokens + excluded.tokens, entries = entries + 1;
    update token_usage_project_totals set task_agent_rows = task_agent_rows + 1
      where project_id = coalesce(new.project_id, '') and not exists (select 1 from token_usage_totals where ${matches('new')});
    insert into token_usage_totals (project_id, task_id, agent_id, tokens, entries) values (${key('new')}, new.tokens, 1)
      on conflict (project_id, task_id, agent_id) do update set tokens = tokens + excluded.tokens, entries = entries + 1;`;
}

/** Statements that take the usage row `old` out of the totals. */
function removeRow(): string {
  return `
    update token_usage_totals set tokens = tokens - old.tokens, entries = entries - 1 where ${matches('old')};
    update token_usage_project_totals set task_agent_rows = task_agent_rows - 1
      where project_id = coalesce(old.project_id, '') and exists (select 1 from token_usage_totals where ${matches('old')} and entries <= 0);
    delete from token_usage_totals where ${matches('old')} and entries <= 0;
    update token_usage_project_totals set tokens = tokens - old.tokens, entries = entries - 1 where project_id = coalesce(old.project_id, '');
    delete from token_usage_project_totals where project_id = coalesce(old.project_id, '') and entries <= 0;`;
}

/** Fills empty totals tables from the usage rows (the migration's backfill; bulk loads reuse it). */
export const TOKEN_USAGE_TOTALS_BACKFILL = [
  "insert into `token_usage_totals` (`project_id`, `task_id`, `agent_id`, `tokens`, `entries`) select coalesce(`project_id`, ''), coalesce(`task_id`, ''), coalesce(`agent_id`, ''), sum(`tokens`), count(*) from `token_usage` group by 1, 2, 3;",
  'insert into `token_usage_project_totals` (`project_id`, `tokens`, `entries`, `task_agent_rows`) select `project_id`, sum(`tokens`), sum(`entries`), count(*) from `token_usage_totals` group by `project_id`;',
];

/** The triggers that keep the totals, by name. */
export const TOKEN_USAGE_TOTALS_TRIGGERS = {
  token_usage_totals_insert: `create trigger \`token_usage_totals_insert\` after insert on \`token_usage\` begin${addRow()}
    end;`,
  token_usage_totals_delete: `create trigger \`token_usage_totals_delete\` after delete on \`token_usage\` begin${removeRow()}
    end;`,
  token_usage_totals_update: `create trigger \`token_usage_totals_update\` after update of \`project_id\`, \`task_id\`, \`agent_id\`, \`tokens\` on \`token_usage\` begin${removeRow()}${addRow()}
    end;`,
};

export class Migration20261123050000 extends PortableMigration {
  override async up(): Promise<void> {
    this.addSql(
      "create table `token_usage_totals` (`project_id` text not null default '', `task_id` text not null default '', `agent_id` text not null default '', `tokens` integer not null default 0, `entries` integer not null default 0, primary key (`project_id`, `task_id`, `agent_id`));",
    );
    // A project's breakdown, largest first, is a walk along this index (covering, so no table reads).
    this.addSql('create index `token_usage_totals_rank` on `token_usage_totals` (`project_id`, `tokens` desc, `task_id`, `agent_id`);');
    this.addSql('create index `token_usage_totals_task` on `token_usage_totals` (`task_id`, `agent_id`);');
    this.addSql(
      "create table `token_usage_project_totals` (`project_id` text not null default '', `tokens` integer not null default 0, `entries` integer not null default 0, `task_agent_rows` integer not null default 0, primary key (`project_id`));",
    );
    this.addSql('create index `token_usage_project_totals_rank` on `token_usage_project_totals` (`tokens` desc, `project_id`);');
    // The scheduler's rolling window (tokens per project since a moment) becomes a range scan of
    // the window instead of a scan of all history.
    this.addSql('create index `token_usage_time` on `token_usage` (`created_at`, `project_id`, `tokens`);');

    for (const sql of TOKEN_USAGE_TOTALS_BACKFILL) this.addSql(sql);
    if (this.postgres) this.addNativeSql(POSTGRES_TRIGGERS);
    else for (const sql of Object.values(TOKEN_USAGE_TOTALS_TRIGGERS)) this.addSql(sql);
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger if exists `token_usage_totals_update`;');
    this.addSql('drop trigger if exists `token_usage_totals_delete`;');
    this.addSql('drop trigger if exists `token_usage_totals_insert`;');
    this.addSql('drop index if exists `token_usage_time`;');
    this.addSql('drop table if exists `token_usage_project_totals`;');
    this.addSql('drop table if exists `token_usage_totals`;');
  }
}
