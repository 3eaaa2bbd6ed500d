import { PortableMigration } from './portable-migration';

/*
 * Where a task was asked for: a permalink to the Slack thread a person mentioned the app in
 * (null for tasks from the CLI, plans and hooks). And a lookup of a task by its own thread, so a
 * reply in a channel finds its task without reading the whole table.
 */
export class Migration20261123072000 extends PortableMigration {
  override async up(): Promise<void> {
    this.addSql('alter table `tasks` add column `source_url` text null;');
    this.addSql('create index `task_threads_channel_thread` on `task_threads` (`channel_id`, `thread_ts`);');
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists `task_threads_channel_thread`;');
    this.addSql('alter table `tasks` drop column `source_url`;');
  }
}
