import { PortableMigration } from './portable-migration';
import { CHAIN_BLOCKER_TRIGGERS } from './postgres/chain-blockers';

/*
 * get_chain_health for a project lists its BLOCKED tasks that hold something up (a task waiting
 * on them directly is not COMPLETED). Finding them by query grew with the project's BLOCKED tasks
 * and their dependents (25.9 ms at 1M tasks); `chain_blockers` keeps the answer, exact, by
 * triggers: a row per task that holds (or held) a chain up, `holds_up` saying whether it does now,
 * with the task's queue order copied so a page is one index range. A task's row is worked out
 * again whenever its status or order changes, when a task waiting on it starts or stops being
 * COMPLETED, and when a dependency on it is added or removed; recomputing (not counting up and
 * down) makes the result independent of the order in which cascaded deletes run.
 */

/** The upsert that works out `holds_up` again for the tasks `b` matching `which` (SQLite). */
export function chainBlockerRefresh(which: string): string {
  return `insert into chain_blockers (task_id, project_id, priority, created_at, holds_up)
    select b.id, b.project_id, b.priority, b.created_at,
           b.status = 'BLOCKED' and exists (select 1 from task_dependencies d join tasks t on t.id = d.task_id
                                             where d.depends_on_id = b.id and t.status <> 'COMPLETED')
      from tasks b
     where (${which})
    on conflict (task_id) do update set project_id = excluded.project_id, priority = excluded.priority,
      created_at = excluded.created_at, holds_up = excluded.holds_up;`;
}

export class Migration20261125200200 extends PortableMigration {
  override async up(): Promise<void> {
    this.addSql(
      'create table `chain_blockers` (`task_id` text not null, `project_id` text not null, `priority` integer not null, `created_at` datetime not null, `holds_up` integer not null default false, primary key (`task_id`));',
    );
    this.addSql('create index `chain_blockers_page` on `chain_blockers` (`project_id`, `holds_up`, `priority`, `created_at`, `task_id`);');
    this.addSql(
      `insert into \`chain_blockers\` (\`task_id\`, \`project_id\`, \`priority\`, \`created_at\`, \`holds_up\`)
       select b.id, b.project_id, b.priority, b.created_at, true from tasks b where b.status = 'BLOCKED'
          and exists (select 1 from task_dependencies d join tasks t on t.id = d.task_id where d.depends_on_id = b.id and t.status <> 'COMPLETED');`,
    );
    if (this.postgres) {
      this.addNativeSql(CHAIN_BLOCKER_TRIGGERS);
      return;
    }
    // A task is refreshed when its own row changes; the tasks it waits on when it starts or stops being COMPLETED.
    this.addSql(`create trigger \`chain_blockers_task_update\` after update of \`status\`, \`project_id\`, \`priority\`, \`created_at\` on \`tasks\` begin
      ${chainBlockerRefresh(`(b.id = new.id and (new.status = 'BLOCKED' or exists (select 1 from chain_blockers c where c.task_id = b.id)))
        or ((old.status = 'COMPLETED') <> (new.status = 'COMPLETED') and b.id in (select depends_on_id from task_dependencies where task_id = new.id))`)}
    end;`);
    this.addSql(`create trigger \`chain_blockers_task_delete\` after delete on \`tasks\` begin
      delete from chain_blockers where task_id = old.id;
    end;`);
    this.addSql(`create trigger \`chain_blockers_dependency_insert\` after insert on \`task_dependencies\` begin
      ${chainBlockerRefresh('b.id = new.depends_on_id')}
    end;`);
    this.addSql(`create trigger \`chain_blockers_dependency_delete\` after delete on \`task_dependencies\` begin
      ${chainBlockerRefresh('b.id = old.depends_on_id')}
    end;`);
  }

  override async down(): Promise<void> {
    if (this.postgres) {
      this.addSql('drop trigger if exists chain_blockers_task_update on tasks;');
      this.addSql('drop trigger if exists chain_blockers_task_delete on tasks;');
      this.addSql('drop trigger if exists chain_blockers_dependency_change on task_dependencies;');
      this.addSql('drop function if exists chain_blockers_task_change();');
      this.addSql('drop function if exists chain_blockers_dependency_change();');
      this.addSql('drop function if exists chain_blockers_refresh(text[]);');
    } else {
      for (const name of ['task_update', 'task_delete', 'dependency_insert', 'dependency_delete']) {
        this.addSql(`drop trigger if exists \`chain_blockers_${name}\`;`);
      }
    }
    this.addSql('drop table if exists `chain_blockers`;');
  }
}
