import { PortableMigration } from './portable-migration';

/*
 * The fleet: `aq worker` processes on other machines (workers), the claim a worker holds on a
 * task (claimed_by + lease_expires_at, renewed by its heartbeat; current_run_id fences every move
 * of the run), one record per run (task_runs: who ran it, from when to when), and the agents and
 * workspaces a worker owns (worker_id; null for the app's own). Plain SQL that SQLite and
 * PostgreSQL both read; times are milliseconds since the epoch.
 */
export class Migration20261123073500 extends PortableMigration {
  override async up(): Promise<void> {
    this.addSql(
      `create table workers (
        name varchar(255) not null primary key,
        host varchar(255) not null,
        capacity integer not null,
        lease_ms integer not null default 30000,
        labels text not null default '[]',
        started_at bigint not null,
        heartbeat_at bigint not null,
        stopped_at bigint null
      );`,
    );
    this.addSql(
      `create table task_runs (
        id varchar(255) not null primary key,
        task_id varchar(255) not null references tasks (id) on delete cascade,
        worker_id varchar(255) null,
        agent_id varchar(255) not null,
        workspace_id varchar(255) not null,
        claimed_at bigint not null,
        ended_at bigint null,
        outcome varchar(255) null
      );`,
    );
    this.addSql('create index task_runs_task on task_runs (task_id, claimed_at);');
    this.addSql('create index task_runs_worker on task_runs (worker_id, ended_at);');
    this.addSql('alter table tasks add column claimed_by varchar(255) null;');
    this.addSql('alter table tasks add column lease_expires_at bigint null;');
    this.addSql('alter table tasks add column current_run_id varchar(255) null;');
    this.addSql('create index tasks_claims on tasks (claimed_by, lease_expires_at);');
    this.addSql('alter table agents add column worker_id varchar(255) null;');
    this.addSql('alter table workspaces add column worker_id varchar(255) null;');
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists tasks_claims;');
    this.addSql('drop table if exists task_runs;');
    this.addSql('drop table if exists workers;');
  }
}
