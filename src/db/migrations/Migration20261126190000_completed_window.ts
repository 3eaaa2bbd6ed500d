import { PortableMigration } from './portable-migration';

/*
 * Every scheduling pass counts each project's tasks completed in the scheduling window (the
 * min-task guarantee). No index led to completed_at, so the count read every COMPLETED task
 * ever: 170 ms a pass at 500k finished tasks on PostgreSQL, growing with the history. An index
 * by status and completion time makes it one range over the window's rows. (Not a partial index
 * of the COMPLETED tasks: SQLite, without statistics, prefers the status order index to a range.)
 */
export class Migration20261126190000 extends PortableMigration {
  override async up(): Promise<void> {
    this.addSql('create index `tasks_completed_window` on `tasks` (`status`, `completed_at`, `project_id`);');
  }

  override async down(): Promise<void> {
    this.addSql('drop index `tasks_completed_window`;');
  }
}
