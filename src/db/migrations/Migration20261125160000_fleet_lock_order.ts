import { PortableMigration } from './portable-migration';
import { TASK_STATUS_COUNT_TRIGGERS } from './postgres/triggers';

/*
 * The fleet's lock order (repositories/LOCK-ORDER.md): a status move locks its two
 * task_status_counts rows in one fixed order, the status names' order, whatever the direction of
 * the move. The trigger of …_task_status_counts took the old status's row first, so moves around
 * the cycle READY → ASSIGNED → IN_PROGRESS → FAILED → READY, made at once by workers in one
 * project, could each hold one row and wait for the next: a deadlock. PostgreSQL only: SQLite has
 * one write lock for the whole file.
 */
export class Migration20261125160000 extends PortableMigration {
  override async up(): Promise<void> {
    if (!this.postgres) return;
    this.addNativeSql([
      `create or replace function tasks_count_change() returns trigger language plpgsql as $$
  declare
    dec_first boolean;
  begin
    dec_first := tg_op = 'DELETE' or (tg_op = 'UPDATE' and (old.project_id, old.status) < (new.project_id, new.status));
    if dec_first then
      update task_status_counts set n = n - 1 where project_id = old.project_id and status = old.status;
    end if;
    if tg_op in ('INSERT', 'UPDATE') then
      insert into task_status_counts (project_id, status, n) values (new.project_id, new.status, 1)
        on conflict (project_id, status) do update set n = task_status_counts.n + 1;
    end if;
    if tg_op = 'UPDATE' and not dec_first then
      update task_status_counts set n = n - 1 where project_id = old.project_id and status = old.status;
    end if;
    return null;
  end $$`,
    ]);
  }

  override async down(): Promise<void> {
    if (this.postgres) this.addNativeSql([TASK_STATUS_COUNT_TRIGGERS[0].replace('create function', 'create or replace function')]);
  }
}
