import { PortableMigration } from './portable-migration';

/*
 * Token and cost budgets over a rolling window: one row per project that has one, and one row
 * with scope '*' for the budget over everything. `warned` remembers, per warning level, when it
 * was last posted (ms since the epoch), so each level is posted once per window even across
 * restarts. A project's budget goes with the project (foreign key, cascade).
 */
export class Migration20261123060000 extends PortableMigration {
  override async up(): Promise<void> {
    this.addSql(
      "create table `budgets` (`scope` text not null, `project_id` text null references `projects` (`id`) on delete cascade, `token_limit` integer null, `cost_limit_usd` real null, `window_hours` integer not null default 24, `warned` text not null default '{}', `updated_at` integer not null, primary key (`scope`), check ((`scope` = '*' and `project_id` is null) or `scope` = `project_id`));",
    );
    this.addSql('create index `budgets_project` on `budgets` (`project_id`);');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists `budgets`;');
  }
}
