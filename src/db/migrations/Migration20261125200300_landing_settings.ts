import { PortableMigration } from './portable-migration';

/*
 * The merge train's per-project settings: a check command run before a task lands (empty: none)
 * and its time limit, how a task branch catches up with the base (rebase or merge), and how many
 * times a task may be sent back before it is BLOCKED. Existing projects get the defaults.
 */
export class Migration20261125200300 extends PortableMigration {
  override async up(): Promise<void> {
    this.addSql("alter table `projects` add column `check_command` text not null default '';");
    this.addSql('alter table `projects` add column `check_timeout_seconds` integer not null default 600;');
    this.addSql("alter table `projects` add column `landing` text not null default 'rebase';");
    this.addSql('alter table `projects` add column `landing_tries` integer not null default 3;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table `projects` drop column `landing_tries`;');
    this.addSql('alter table `projects` drop column `landing`;');
    this.addSql('alter table `projects` drop column `check_timeout_seconds`;');
    this.addSql('alter table `projects` drop column `check_command`;');
  }
}
