import { PortableMigration } from './portable-migration';

/*
 * The conflict radar: the files each live task's workspace touched (committed against its base
 * plus uncommitted), written by whichever process or worker runs the task, and the overlaps
 * between two live tasks of one repository (one row per pair, task_a < task_b, so two processes
 * seeing the same overlap write one row). A project's overlap_policy says whether an overlap only
 * warns or also holds back READY tasks that would touch a running task's files. Times are
 * milliseconds since the epoch.
 */
export class Migration20261125200400 extends PortableMigration {
  override async up(): Promise<void> {
    this.addSql(
      `create table task_touched_files (
        task_id varchar(255) not null references tasks (id) on delete cascade,
        path varchar(1024) not null,
        project_id varchar(255) not null,
        repo_key varchar(255) not null,
        primary key (task_id, path)
      );`,
    );
    this.addSql('create index task_touched_files_repo_path on task_touched_files (project_id, repo_key, path);');
    this.addSql(
      `create table task_overlaps (
        task_a varchar(255) not null references tasks (id) on delete cascade,
        task_b varchar(255) not null references tasks (id) on delete cascade,
        project_id varchar(255) not null,
        repo_key varchar(255) not null,
        files text not null,
        detected_at bigint not null,
        updated_at bigint not null,
        primary key (task_a, task_b)
      );`,
    );
    this.addSql('create index task_overlaps_project on task_overlaps (project_id, repo_key);');
    this.addSql('create index task_overlaps_task_b on task_overlaps (task_b);');
    this.addSql("alter table `projects` add column `overlap_policy` varchar(255) not null default 'warn';");
  }

  override async down(): Promise<void> {
    this.addSql('alter table `projects` drop column `overlap_policy`;');
    this.addSql('drop table if exists task_overlaps;');
    this.addSql('drop table if exists task_touched_files;');
  }
}
