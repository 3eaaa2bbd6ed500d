import { PortableMigration } from './portable-migration';

const CREATE = `create trigger chain_blockers_task_update after update of status, project_id, priority, created_at on tasks for each row`;
const ORDER_CHANGED = `old.project_id is distinct from new.project_id or old.priority is distinct from new.priority
          or old.created_at is distinct from new.created_at`;

/*
 * PostgreSQL called chain_blockers_refresh on every status move, three a run (READY → ASSIGNED →
 * IN_PROGRESS → COMPLETED), about 1 ms of the server's time each. A move changes a task's
 * chain_blockers row only when it enters or leaves BLOCKED (its own `holds_up`) or starts or stops
 * being COMPLETED (the rows of the tasks it waits on); any other move leaves every row as it was,
 * so the trigger now skips it. SQLite's trigger already filters its rows in one statement.
 */
export class Migration20261126193000 extends PortableMigration {
  override async up(): Promise<void> {
    if (!this.postgres) return;
    this.addSql('drop trigger chain_blockers_task_update on tasks;');
    this.addSql(`${CREATE}
      when (${ORDER_CHANGED}
            or (old.status is distinct from new.status
                and ('BLOCKED' in (old.status, new.status) or (old.status = 'COMPLETED') <> (new.status = 'COMPLETED'))))
      execute function chain_blockers_task_change();`);
  }

  override async down(): Promise<void> {
    if (!this.postgres) return;
    this.addSql('drop trigger chain_blockers_task_update on tasks;');
    this.addSql(`${CREATE}
      when (old.status is distinct from new.status or ${ORDER_CHANGED})
      execute function chain_blockers_task_change();`);
  }
}
