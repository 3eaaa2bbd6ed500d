import { PortableMigration } from './portable-migration';

/*
 * Task rooms (Slack code channels, issue 21): a project decides which tasks get one
 * (`task_rooms`: all, approval, off; existing projects get the default, approval), and each
 * task's room is remembered so a retry or a restart never opens a second one.
 */
export class Migration20261125200500 extends PortableMigration {
  override async up(): Promise<void> {
    this.addSql("alter table `projects` add column `task_rooms` text not null default 'approval';");
    this.addSql(
      'create table `task_rooms` (`task_id` text not null primary key, `channel_id` text not null, `url` text null, ' +
        "`views` text not null default '[]', `context_hash` text null, `diff_hash` text null, `diff_stats` text null, `archived_at` datetime null, " +
        '`created_at` datetime not null, constraint `task_rooms_task_id_foreign` foreign key(`task_id`) references `tasks`(`id`) on delete cascade on update cascade);',
    );
    this.addSql('create index `task_rooms_channel` on `task_rooms` (`channel_id`);');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists `task_rooms`;');
    this.addSql('alter table `projects` drop column `task_rooms`;');
  }
}
