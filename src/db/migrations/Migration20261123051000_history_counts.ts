import { PortableMigration } from './portable-migration';
import { HISTORY_COUNT_TRIGGERS } from './postgres/triggers';

/*
 * Row counts of the tables that grow with history (events, each hook's runs), kept exact by
 * triggers, so a page of get_recent_events or list_hook_runs can say how many there are in all
 * without counting them (count(*) reads the whole table or index in SQLite).
 * Keys: `events`, and `hook_runs:<hook id>`. A key whose count reaches 0 is removed, so a
 * deleted hook (its runs cascade) leaves nothing behind.
 */

function countChange(table: string, key: string, row: 'new' | 'old'): string {
  const when = row === 'new' ? 'insert' : 'delete';
  const change =
    row === 'new'
      ? `insert into history_counts (name, n) values (${key}, 1) on conflict (name) do update set n = n + 1;`
      : `update history_counts set n = n - 1 where name = ${key};
      delete from history_counts where name = ${key} and n <= 0;`;
  return `create trigger \`${table}_history_${when}\` after ${when} on \`${table}\` begin
      ${change}
    end;`;
}

export class Migration20261123051000 extends PortableMigration {
  override async up(): Promise<void> {
    this.addSql('create table `history_counts` (`name` text not null, `n` integer not null default 0, primary key (`name`));');
    this.addSql("insert into `history_counts` (`name`, `n`) select 'events', count(*) from `events` having count(*) > 0;");
    this.addSql(
      "insert into `history_counts` (`name`, `n`) select 'hook_runs:' || `hook_id`, count(*) from `hook_runs` group by `hook_id`;",
    );
    if (this.postgres) {
      this.addNativeSql(HISTORY_COUNT_TRIGGERS);
      return;
    }
    this.addSql(countChange('events', "'events'", 'new'));
    this.addSql(countChange('events', "'events'", 'old'));
    this.addSql(countChange('hook_runs', "'hook_runs:' || new.hook_id", 'new'));
    this.addSql(countChange('hook_runs', "'hook_runs:' || old.hook_id", 'old'));
  }

  override async down(): Promise<void> {
    for (const table of ['events', 'hook_runs']) {
      this.addSql(`drop trigger if exists \`${table}_history_insert\`;`);
      this.addSql(`drop trigger if exists \`${table}_history_delete\`;`);
    }
    this.addSql('drop table if exists `history_counts`;');
  }
}
