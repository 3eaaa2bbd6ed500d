import { PortableMigration } from './portable-migration';

/*
 * People (Slack user ids) who may message a project's running agents and queue follow-ups,
 * besides the admins. A project without rows follows the admin rule alone.
 */
export class Migration20261123064000 extends PortableMigration {
  override async up(): Promise<void> {
    this.addSql(
      'create table `project_steerers` (`project_id` text not null references `projects` (`id`) on delete cascade, `user_id` text not null, primary key (`project_id`, `user_id`));',
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists `project_steerers`;');
  }
}
