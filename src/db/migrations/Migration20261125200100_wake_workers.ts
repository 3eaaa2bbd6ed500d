import { PortableMigration } from './portable-migration';
import { WORK_CHANNEL } from '../work-notifier';

/*
 * Idle workers wake on new work instead of waiting for their next poll: a task that becomes READY
 * (created or moved back), or one that leaves ASSIGNED/IN_PROGRESS/WAITING_INPUT (its agent and
 * workspace free up), notifies WORK_CHANNEL. A trigger, so every path that makes such a move
 * notifies, and in its transaction: PostgreSQL delivers the notice at commit, never for a move
 * rolled back. PostgreSQL only: SQLite has no LISTEN, and workers poll there.
 */
export class Migration20261125200100 extends PortableMigration {
  override async up(): Promise<void> {
    if (!this.postgres) return;
    this.addNativeSql([
      `create function tasks_wake_workers() returns trigger language plpgsql as $$
  begin
    perform pg_notify('${WORK_CHANNEL}', '');
    return null;
  end $$`,
      `create trigger tasks_wake_workers_insert after insert on tasks for each row
  when (new.status = 'READY') execute function tasks_wake_workers()`,
      `create trigger tasks_wake_workers_update after update of status on tasks for each row
  when (new.status is distinct from old.status and (new.status = 'READY'
    or (old.status in ('ASSIGNED', 'IN_PROGRESS', 'WAITING_INPUT') and new.status not in ('ASSIGNED', 'IN_PROGRESS', 'WAITING_INPUT'))))
  execute function tasks_wake_workers()`,
    ]);
  }

  override async down(): Promise<void> {
    if (!this.postgres) return;
    this.addNativeSql([
      'drop trigger if exists tasks_wake_workers_update on tasks',
      'drop trigger if exists tasks_wake_workers_insert on tasks',
      'drop function if exists tasks_wake_workers()',
    ]);
  }
}
