import { PortableMigration } from './portable-migration';

/*
 * The Slack thread a task was reported in (channel intake, issue 23), so a reply there reaches
 * the task's agent as a reply in the task's own thread does.
 */
export class Migration20261126021500 extends PortableMigration {
  override async up(): Promise<void> {
    this.addSql(
      'create table `task_source_threads` (`task_id` text not null primary key, `channel_id` text not null, `thread_ts` text not null, ' +
        '`created_at` datetime not null, constraint `task_source_threads_task_id_foreign` foreign key(`task_id`) references `tasks`(`id`) on delete cascade on update cascade);',
    );
    this.addSql('create index `task_source_threads_place` on `task_source_threads` (`channel_id`, `thread_ts`);');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists `task_source_threads`;');
  }
}
