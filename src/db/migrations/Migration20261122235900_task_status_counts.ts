import { PortableMigration } from './portable-migration';
import { TASK_STATUS_COUNT_TRIGGERS } from './postgres/triggers';

/**
 * Task counts per project and status, kept exact by triggers, so status views read a few rows
 * instead of scanning every task (get_status at 100k tasks). Triggers run inside SQLite, so
 * every process's writes — and foreign-key cascades — keep the counts right.
 */
export class Migration20261122235900 extends PortableMigration {
  override async up(): Promise<void> {
    this.addSql(
      'create table `task_status_counts` (`project_id` text not null, `status` text not null, `n` integer not null default 0, primary key (`project_id`, `status`));',
    );
    this.addSql(
      'insert into `task_status_counts` (`project_id`, `status`, `n`) select `project_id`, `status`, count(*) from `tasks` group by `project_id`, `status`;',
    );
    if (this.postgres) {
      this.addNativeSql(TASK_STATUS_COUNT_TRIGGERS);
      return;
    }
    this.addSql(`create trigger \`tasks_count_insert\` after insert on \`tasks\` begin
      insert into task_status_counts (project_id, status, n) values (new.project_id, new.status, 1)
        on conflict (project_id, status) do update set n = n + 1;
    end;`);
    this.addSql(`create trigger \`tasks_count_delete\` after delete on \`tasks\` begin
      update task_status_counts set n = n - 1 where project_id = old.project_id and status = old.status;
    end;`);
    this.addSql(`create trigger \`tasks_count_update\` after update of \`status\`, \`project_id\` on \`tasks\`
      when old.status is not new.status or old.project_id is not new.project_id begin
      update task_status_counts set n = n - 1 where project_id = old.project_id and status = old.status;
      insert into task_status_counts (project_id, status, n) values (new.project_id, new.status, 1)
        on conflict (project_id, status) do update set n = n + 1;
    end;`);
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger if exists `tasks_count_update`;');
    this.addSql('drop trigger if exists `tasks_count_delete`;');
    this.addSql('drop trigger if exists `tasks_count_insert`;');
    this.addSql('drop table if exists `task_status_counts`;');
  }
}
