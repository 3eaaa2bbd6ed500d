import { PortableMigration } from './portable-migration';

/*
 * What a running agent asks people: a question (AskUserQuestion) or a permission for a tool call
 * outside its project's policy. The run waits on its row (any process may answer it), so the
 * answer lives here, not in memory. `payload` and `answer` are JSON. A project's tool policy
 * (Claude Code allow rules such as `Bash(npm test:*)`) is one row; no row means the default.
 */
export class Migration20261123073000 extends PortableMigration {
  override async up(): Promise<void> {
    this.addSql(
      "create table `agent_requests` (`id` integer primary key autoincrement, `task_id` text not null references `tasks` (`id`) on delete cascade, `project_id` text not null, `kind` text not null check (`kind` in ('question', 'permission')), `payload` text not null, `status` text not null default 'pending' check (`status` in ('pending', 'answered', 'timed_out', 'cancelled')), `answer` text null, `answered_by` text null, `created_at` integer not null, `answered_at` integer null, `expires_at` integer null);",
    );
    this.addSql('create index `agent_requests_task_status` on `agent_requests` (`task_id`, `status`);');
    this.addSql('create index `agent_requests_status` on `agent_requests` (`status`, `id`);');
    this.addSql(
      'create table `project_tool_policies` (`project_id` text not null primary key references `projects` (`id`) on delete cascade, `rules` text not null, `updated_at` integer not null, `updated_by` text null);',
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists `agent_requests`;');
    this.addSql('drop table if exists `project_tool_policies`;');
  }
}
