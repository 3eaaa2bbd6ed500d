import { PortableMigration } from './portable-migration';

/*
 * Agent backends (issue 22). An agent runs Claude Code (`claude-code`, every existing agent) or an
 * ACP agent started from a configured profile. A project may list the backends its tasks may use,
 * in order of preference (null: any), and a task may ask for one; once a task has run, it keeps
 * its backend (sessions do not move between vendors). A run whose agent did not report its tokens
 * or cost records them as unknown rather than as zero.
 */
export class Migration20261125200600 extends PortableMigration {
  override async up(): Promise<void> {
    this.addSql("alter table `agents` add column `backend` text not null default 'claude-code';");
    this.addSql('alter table `agents` add column `profile` text null;');
    this.addSql('alter table `projects` add column `backends` json null;');
    this.addSql('alter table `tasks` add column `backend` text null;');
    this.addSql('alter table `task_results` add column `tokens_reported` integer not null default true;');
    this.addSql('alter table `task_results` add column `cost_reported` integer not null default true;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table `task_results` drop column `cost_reported`;');
    this.addSql('alter table `task_results` drop column `tokens_reported`;');
    this.addSql('alter table `tasks` drop column `backend`;');
    this.addSql('alter table `projects` drop column `backends`;');
    this.addSql('alter table `agents` drop column `profile`;');
    this.addSql('alter table `agents` drop column `backend`;');
  }
}
