import { PortableMigration } from './portable-migration';

/*
 * Automations: work that starts itself (channel intake, schedules, inbound webhooks). One row per
 * automation with its task template and the fields of its kind as JSON; `next_run_at` is advanced
 * by compare-and-set so only one process of the fleet fires a schedule's run. Every firing leaves
 * a row in automation_runs; `dedup_key` is unique per automation, so a retried webhook delivery or
 * an item a discovery query already turned into a task never creates a second one. Times are
 * milliseconds since the epoch.
 */
export class Migration20261125200700 extends PortableMigration {
  override async up(): Promise<void> {
    this.addSql(
      `create table automations (
        id varchar(255) not null primary key,
        name varchar(255) not null,
        kind varchar(255) not null,
        project_id varchar(255) not null references projects (id) on delete cascade,
        owner varchar(255) null,
        state varchar(255) not null default 'enabled',
        paused_reason text null,
        rate_limit_per_hour integer not null default 10,
        task_template text not null,
        settings text not null,
        channel_id varchar(255) null,
        next_run_at bigint null,
        consecutive_failures integer not null default 0,
        last_task_id varchar(255) null,
        created_at bigint not null,
        updated_at bigint not null
      );`,
    );
    this.addSql('create index automations_due on automations (kind, state, next_run_at);');
    this.addSql('create index automations_channel on automations (channel_id);');
    this.addSql(
      `create table automation_runs (
        id integer primary key autoincrement,
        automation_id varchar(255) not null references automations (id) on delete cascade,
        at bigint not null,
        fired_by varchar(255) not null,
        outcome varchar(255) not null,
        reason text null,
        task_id varchar(255) null,
        task_outcome varchar(255) null,
        dedup_key varchar(255) null
      );`,
    );
    this.addSql('create index automation_runs_by_automation on automation_runs (automation_id, at);');
    this.addSql('create unique index automation_runs_dedup on automation_runs (automation_id, dedup_key);');
    this.addSql('create index automation_runs_open_tasks on automation_runs (task_outcome, task_id);');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists automation_runs;');
    this.addSql('drop table if exists automations;');
  }
}
