import { PortableMigration } from './portable-migration';

export class Migration20261122225818 extends PortableMigration {
  override async up(): Promise<void> {
    this.addSql(
      `create table \`agents\` (\`id\` text not null, \`name\` text not null, \`type\` text not null default 'claude', \`state\` text not null default 'IDLE', \`current_task\` text null, \`checkout_path\` text null, \`repo_id\` text null, \`last_heartbeat\` datetime null, \`created_at\` datetime not null, primary key (\`id\`));`,
    );
    this.addSql(`create index \`agents_state_index\` on \`agents\` (\`state\`);`);

    this.addSql(
      `create table \`chat_threads\` (\`id\` text not null, \`summary\` text null, \`turns\` json not null, \`updated_at\` datetime not null, primary key (\`id\`));`,
    );

    this.addSql(
      `create table \`events\` (\`id\` integer not null primary key autoincrement, \`type\` text not null, \`project_id\` text null, \`task_id\` text null, \`agent_id\` text null, \`payload\` json null, \`origin\` text null, \`created_at\` datetime not null);`,
    );
    this.addSql(`create index \`events_task_id_index\` on \`events\` (\`task_id\`);`);
    this.addSql(`create index \`events_project_id\` on \`events\` (\`project_id\`, \`id\`);`);

    this.addSql(
      `create table \`processed_slack_events\` (\`event_id\` text not null, \`received_at\` datetime not null, primary key (\`event_id\`));`,
    );

    this.addSql(
      `create table \`projects\` (\`id\` text not null, \`name\` text not null, \`status\` text not null default 'ACTIVE', \`credit_weight\` double not null default 1, \`max_concurrent_agents\` integer not null default 2, \`workspace\` text not null, \`chat_channel_id\` text null, \`budget_limit\` integer null, \`created_at\` datetime not null, \`updated_at\` datetime not null, primary key (\`id\`));`,
    );
    this.addSql(`create index \`projects_chat_channel_id_index\` on \`projects\` (\`chat_channel_id\`);`);

    this.addSql(
      `create table \`hooks\` (\`id\` text not null, \`project_id\` text not null, \`name\` text not null, \`enabled\` integer not null default true, \`trigger\` json not null, \`context_steps\` json not null, \`prompt_template\` text not null, \`cooldown_seconds\` integer not null default 3600, \`llm_config\` json null, \`last_run_at\` datetime null, \`created_at\` datetime not null, \`updated_at\` datetime not null, constraint \`hooks_project_id_foreign\` foreign key(\`project_id\`) references \`projects\`(\`id\`) on delete cascade on update cascade, primary key (\`id\`));`,
    );
    this.addSql(`create index \`hooks_project_id_index\` on \`hooks\` (\`project_id\`);`);

    this.addSql(
      `create table \`hook_runs\` (\`id\` text not null, \`hook_id\` text not null, \`project_id\` text not null, \`trigger_reason\` text not null, \`status\` text not null default 'running', \`event_data\` json null, \`context_results\` json null, \`prompt_sent\` text null, \`llm_response\` text null, \`skipped_reason\` text null, \`tokens_used\` integer not null default 0, \`started_at\` datetime not null, \`completed_at\` datetime null, constraint \`hook_runs_hook_id_foreign\` foreign key(\`hook_id\`) references \`hooks\`(\`id\`) on delete cascade on update cascade, primary key (\`id\`));`,
    );
    this.addSql(`create index \`hook_runs_hook_id_index\` on \`hook_runs\` (\`hook_id\`);`);
    this.addSql(`create index \`hook_runs_hook_started\` on \`hook_runs\` (\`hook_id\`, \`started_at\`);`);

    this.addSql(
      `create table \`repos\` (\`id\` text not null, \`project_id\` text not null, \`name\` text not null, \`source_type\` text not null, \`url\` text null, \`source_path\` text null, \`default_branch\` text not null default 'main', \`checkout_base_path\` text null, \`created_at\` datetime not null, constraint \`repos_project_id_foreign\` foreign key(\`project_id\`) references \`projects\`(\`id\`) on delete cascade on update cascade, primary key (\`id\`));`,
    );
    this.addSql(`create index \`repos_project_id_index\` on \`repos\` (\`project_id\`);`);

    this.addSql(
      `create table \`system_state\` (\`key\` text not null, \`value\` json null, \`updated_at\` datetime not null, primary key (\`key\`));`,
    );

    this.addSql(
      `create table \`tasks\` (\`id\` text not null, \`project_id\` text not null, \`title\` text not null, \`description\` text not null, \`status\` text not null default 'READY', \`priority\` integer not null default 100, \`assigned_agent\` text null, \`retry_count\` integer not null default 0, \`max_retries\` integer not null default 3, \`requires_approval\` integer not null default false, \`pr_url\` text null, \`repo_id\` text null, \`branch_name\` text null, \`parent_task_id\` text null, \`is_plan_subtask\` integer not null default false, \`plan_depth\` integer not null default 0, \`plan_source\` text null, \`auto_tasks\` integer not null default true, \`preferred_workspace_id\` text null, \`workspace_id\` text null, \`resume_after\` datetime null, \`pause_reason\` text null, \`skipped\` integer not null default false, \`created_at\` datetime not null, \`updated_at\` datetime not null, \`started_at\` datetime null, \`completed_at\` datetime null, constraint \`tasks_project_id_foreign\` foreign key(\`project_id\`) references \`projects\`(\`id\`) on delete cascade on update cascade, primary key (\`id\`));`,
    );
    // PostgreSQL has no rowid: `seq` gives tasks the insertion order that breaks ties in paging.
    if (this.postgres) this.addSql('alter table `tasks` add column `seq` bigserial not null');
    this.addSql(`create index \`tasks_project_id_index\` on \`tasks\` (\`project_id\`);`);
    this.addSql(`create index \`tasks_assigned_agent_index\` on \`tasks\` (\`assigned_agent\`);`);
    this.addSql(`create index \`tasks_parent_task_id_index\` on \`tasks\` (\`parent_task_id\`);`);
    this.addSql(`create index \`tasks_project_order\` on \`tasks\` (\`project_id\`, \`priority\`, \`created_at\`);`);
    this.addSql(`create index \`tasks_order\` on \`tasks\` (\`priority\`, \`created_at\`);`);
    this.addSql(`create index \`tasks_status_order\` on \`tasks\` (\`status\`, \`priority\`, \`created_at\`);`);
    this.addSql(`create index \`tasks_project_status_order\` on \`tasks\` (\`project_id\`, \`status\`, \`priority\`, \`created_at\`);`);

    this.addSql(
      `create table \`task_dependencies\` (\`task_id\` text not null, \`depends_on_id\` text not null, constraint \`task_dependencies_task_id_foreign\` foreign key(\`task_id\`) references \`tasks\`(\`id\`) on delete cascade on update cascade, constraint \`task_dependencies_depends_on_id_foreign\` foreign key(\`depends_on_id\`) references \`tasks\`(\`id\`) on delete cascade on update cascade, primary key (\`task_id\`, \`depends_on_id\`));`,
    );
    this.addSql(`create index \`task_dependencies_task_id_index\` on \`task_dependencies\` (\`task_id\`);`);
    this.addSql(`create index \`task_dependencies_upstream\` on \`task_dependencies\` (\`depends_on_id\`);`);

    this.addSql(
      `create table \`task_results\` (\`id\` integer not null primary key autoincrement, \`task_id\` text not null, \`agent_id\` text null, \`result\` text not null, \`summary\` text null, \`error_message\` text null, \`files_changed\` json null, \`tokens_used\` integer not null default 0, \`cost_usd\` double not null default 0, \`session_id\` text null, \`created_at\` datetime not null, constraint \`task_results_task_id_foreign\` foreign key(\`task_id\`) references \`tasks\`(\`id\`) on delete cascade on update cascade);`,
    );
    this.addSql(`create index \`task_results_task_id_index\` on \`task_results\` (\`task_id\`);`);

    this.addSql(
      `create table \`task_threads\` (\`task_id\` text not null, \`channel_id\` text not null, \`thread_ts\` text not null, \`created_at\` datetime not null, constraint \`task_threads_task_id_foreign\` foreign key(\`task_id\`) references \`tasks\`(\`id\`) on delete cascade on update cascade, primary key (\`task_id\`));`,
    );
    this.addSql(`create index \`task_threads_task_id_index\` on \`task_threads\` (\`task_id\`);`);

    this.addSql(
      `create table \`token_usage\` (\`id\` integer not null primary key autoincrement, \`project_id\` text null, \`task_id\` text null, \`agent_id\` text null, \`source\` text not null default 'agent', \`input_tokens\` integer not null default 0, \`output_tokens\` integer not null default 0, \`cache_read_tokens\` integer not null default 0, \`cache_creation_tokens\` integer not null default 0, \`tokens\` integer not null default 0, \`cost_usd\` double not null default 0, \`created_at\` datetime not null);`,
    );
    this.addSql(`create index \`token_usage_task\` on \`token_usage\` (\`task_id\`);`);
    this.addSql(`create index \`token_usage_project_time\` on \`token_usage\` (\`project_id\`, \`created_at\`);`);

    this.addSql(
      `create table \`workspaces\` (\`id\` text not null, \`project_id\` text not null, \`name\` text not null, \`path\` text not null, \`source_type\` text not null default 'clone', \`repo_id\` text null, \`locked_by_task_id\` text null, \`locked_by_agent_id\` text null, \`locked_at\` datetime null, \`created_at\` datetime not null, constraint \`workspaces_project_id_foreign\` foreign key(\`project_id\`) references \`projects\`(\`id\`) on delete cascade on update cascade, primary key (\`id\`));`,
    );
    this.addSql(`create index \`workspaces_project_id_index\` on \`workspaces\` (\`project_id\`);`);
    this.addSql(`create unique index \`workspaces_path_unique\` on \`workspaces\` (\`path\`);`);
    this.addSql(`create index \`workspaces_project_lock\` on \`workspaces\` (\`project_id\`, \`locked_by_task_id\`);`);
  }
}
