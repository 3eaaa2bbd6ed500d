import { PortableMigration } from './portable-migration';

/*
 * Messages people send to a task's agent (a reply in its Slack thread, `aq exec message_task`).
 * `kind` is 'live' for a running session (the daemon's adapter feeds it in as a new user
 * message) or 'follow_up' for a finished task (the next run resumes the session with it).
 * `delivered_at` is set once the agent got it; a message goes with its task.
 */
export class Migration20261123063000 extends PortableMigration {
  override async up(): Promise<void> {
    this.addSql(
      "create table `task_messages` (`id` integer primary key autoincrement, `task_id` text not null references `tasks` (`id`) on delete cascade, `kind` text not null check (`kind` in ('live', 'follow_up')), `text` text not null, `author` text null, `created_at` integer not null, `delivered_at` integer null);",
    );
    this.addSql('create index `task_messages_pending` on `task_messages` (`task_id`, `delivered_at`);');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists `task_messages`;');
  }
}
