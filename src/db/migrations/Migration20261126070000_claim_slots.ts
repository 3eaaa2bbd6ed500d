import { PortableMigration } from './portable-migration';
import { CLAIM_SLOT_BACKFILL, CLAIM_SLOT_TRIGGERS } from './postgres/claim-slots';

/*
 * Claims of one project used to take turns: each locked the project's row (FOR NO KEY UPDATE, no
 * SKIP LOCKED) to count its running tasks against max_concurrent_agents, and held it to commit,
 * so eight claimers made about as many claims as one (bench/README.md). The cap is now
 * `max_concurrent_agents` rows of project_slots, each free or bound to one run (run_id); a claim
 * takes a free one with FOR UPDATE SKIP LOCKED like its task, and triggers keep the rows
 * (postgres/claim-slots.ts). PostgreSQL only: SQLite has one writer, whose claim counts the
 * running tasks under the database's write lock as before, so the table would be dead weight there.
 */
export class Migration20261126070000 extends PortableMigration {
  override async up(): Promise<void> {
    if (!this.postgres) return;
    this.addNativeSql([
      `create table project_slots (
        project_id text not null references projects (id) on delete cascade,
        slot bigint not null,
        run_id varchar(255) null,
        retired boolean not null default false,
        primary key (project_id, slot)
      )`,
      'create index project_slots_run on project_slots (run_id) where run_id is not null',
      ...CLAIM_SLOT_TRIGGERS,
      ...CLAIM_SLOT_BACKFILL,
    ]);
  }

  override async down(): Promise<void> {
    if (!this.postgres) return;
    this.addNativeSql([
      'drop trigger if exists tasks_slot_release_update on tasks',
      'drop trigger if exists tasks_slot_release_delete on tasks',
      'drop trigger if exists projects_slots_insert on projects',
      'drop trigger if exists projects_slots_update on projects',
      'drop function if exists tasks_slot_release()',
      'drop function if exists projects_slots_change()',
      'drop function if exists fit_project_slots(text, bigint)',
      'drop table if exists project_slots',
    ]);
  }
}
