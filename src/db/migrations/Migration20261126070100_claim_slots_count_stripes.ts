import { PortableMigration } from './portable-migration';

/** How many rows each (project, status) count of task_status_counts is spread over on PostgreSQL. */
const STRIPES = 16;

/*
 * With project slots (…_claim_slots) claims of one project no longer wait on the project's row;
 * they then waited on the counts rows instead: every move's trigger adds to (project, status), so
 * every claim of a project updated the same (project, READY) and (project, ASSIGNED) rows and held
 * them to commit (sampled in bench/README.md). Each count is now spread over STRIPES rows, the
 * stripe chosen by the writing connection (pg_backend_pid), so concurrent writers of one project
 * rarely share a row, and read as the sum of its stripes. A move adds to its new status and
 * subtracts from its old one on the same stripe, so a stripe may go below zero; only sums are
 * counts. The two rows of a move are still taken in the order of (project, status)
 * (…_fleet_lock_order). PostgreSQL only: SQLite has one writer and keeps one row per count.
 */
export class Migration20261126070100 extends PortableMigration {
  override async up(): Promise<void> {
    if (!this.postgres) return;
    this.addNativeSql([
      'alter table task_status_counts add column stripe smallint not null default 0',
      'alter table task_status_counts drop constraint task_status_counts_pkey',
      'alter table task_status_counts add primary key (project_id, status, stripe)',
      `create or replace function tasks_count_change() returns trigger language plpgsql as $$
  declare
    dec_first boolean;
    s smallint := pg_backend_pid() % ${STRIPES};
  begin
    dec_first := tg_op = 'DELETE' or (tg_op = 'UPDATE' and (old.project_id, old.status) < (new.project_id, new.status));
    if dec_first then
      insert into task_status_counts (project_id, status, stripe, n) values (old.project_id, old.status, s, -1)
        on conflict (project_id, status, stripe) do update set n = task_status_counts.n - 1;
    end if;
    if tg_op in ('INSERT', 'UPDATE') then
      insert into task_status_counts (project_id, status, stripe, n) values (new.project_id, new.status, s, 1)
        on conflict (project_id, status, stripe) do update set n = task_status_counts.n + 1;
    end if;
    if tg_op = 'UPDATE' and not dec_first then
      insert into task_status_counts (project_id, status, stripe, n) values (old.project_id, old.status, s, -1)
        on conflict (project_id, status, stripe) do update set n = task_status_counts.n - 1;
    end if;
    return null;
  end $$`,
    ]);
  }

  override async down(): Promise<void> {
    // Going back would fold the stripes into one row per count again; as the earlier migrations, up only.
    this.addSql('select 1;');
  }
}
