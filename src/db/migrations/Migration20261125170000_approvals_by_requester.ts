import { PortableMigration } from './portable-migration';

/*
 * A project may leave approving its tasks (which merges them) to the person who asked for each
 * task and the admins; a task records who asked for it (a Slack user id; null for tasks from the
 * CLI, plans and hooks, which then only admins approve under that rule). Existing projects keep
 * the rule off and existing tasks have no requester.
 */
export class Migration20261125170000 extends PortableMigration {
  override async up(): Promise<void> {
    this.addSql('alter table `projects` add column `approvals_by_requester` integer not null default false;');
    this.addSql('alter table `tasks` add column `requested_by` text null;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table `tasks` drop column `requested_by`;');
    this.addSql('alter table `projects` drop column `approvals_by_requester`;');
  }
}
