import { PortableMigration } from './portable-migration';
import { AUTOMATION_RUN_COUNT_TRIGGERS } from './postgres/automation-run-counts';

/*
 * The logs page by cursor as list_tasks does: list_hook_runs and list_automation_runs continue
 * after `(time, id)` of the last run shown, newest first, so their order indexes end in id (the
 * tie-breaker) and a deep page is one index range on both databases; they replace the indexes
 * they extend. get_recent_events pages by the events' primary key and needs nothing.
 * list_automation_runs counted every run of the automation on each page; the count is now kept
 * in history_counts under `automation_runs:<automation id>` by triggers, as hook runs' already
 * is (removed at zero, so a deleted automation leaves nothing behind).
 */
const key = (row: 'new' | 'old') => `'automation_runs:' || ${row}.automation_id`;

export class Migration20261126040000 extends PortableMigration {
  override async up(): Promise<void> {
    this.addSql('create index `hook_runs_hook_started_id` on `hook_runs` (`hook_id`, `started_at`, `id`);');
    this.addSql('drop index `hook_runs_hook_started`;');
    this.addSql('create index `automation_runs_by_automation_at_id` on `automation_runs` (`automation_id`, `at`, `id`);');
    this.addSql('drop index `automation_runs_by_automation`;');
    this.addSql(
      "insert into `history_counts` (`name`, `n`) select 'automation_runs:' || `automation_id`, count(*) from `automation_runs` group by `automation_id`;",
    );
    if (this.postgres) {
      this.addNativeSql(AUTOMATION_RUN_COUNT_TRIGGERS);
      return;
    }
    this.addSql(`create trigger \`automation_runs_count_insert\` after insert on \`automation_runs\` begin
      insert into history_counts (name, n) values (${key('new')}, 1) on conflict (name) do update set n = n + 1;
    end;`);
    this.addSql(`create trigger \`automation_runs_count_delete\` after delete on \`automation_runs\` begin
      update history_counts set n = n - 1 where name = ${key('old')};
      delete from history_counts where name = ${key('old')} and n <= 0;
    end;`);
  }

  override async down(): Promise<void> {
    if (this.postgres) {
      this.addSql('drop trigger if exists automation_runs_history_insert on automation_runs;');
      this.addSql('drop trigger if exists automation_runs_history_delete on automation_runs;');
      this.addSql('drop function if exists automation_runs_history_change();');
    } else {
      this.addSql('drop trigger if exists `automation_runs_count_insert`;');
      this.addSql('drop trigger if exists `automation_runs_count_delete`;');
    }
    this.addSql("delete from `history_counts` where `name` like 'automation_runs:%';");
    this.addSql('create index `automation_runs_by_automation` on `automation_runs` (`automation_id`, `at`);');
    this.addSql('drop index `automation_runs_by_automation_at_id`;');
    this.addSql('create index `hook_runs_hook_started` on `hook_runs` (`hook_id`, `started_at`);');
    this.addSql('drop index `hook_runs_hook_started_id`;');
  }
}
