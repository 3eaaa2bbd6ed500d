import { PortableMigration } from './portable-migration';

/*
 * The merge train: one row per task queued to land, in the order of `place` within its train
 * (a repository, or a project without one), with the landing state it is in; and one landing lock
 * per train, held by one process of the fleet at a time under a lease, so a holder that dies
 * frees it when its lease lapses. Times are milliseconds since the epoch.
 */
export class Migration20261125200310 extends PortableMigration {
  override async up(): Promise<void> {
    this.addSql(
      `create table merge_train (
        task_id varchar(255) not null primary key references tasks (id) on delete cascade,
        project_id varchar(255) not null,
        train varchar(255) not null,
        place integer not null,
        state varchar(255) not null default 'waiting',
        since bigint not null,
        entered_at bigint not null,
        tries integer not null default 0,
        last_outcome text null
      );`,
    );
    this.addSql('create index merge_train_order on merge_train (train, place, entered_at);');
    this.addSql('create index merge_train_project on merge_train (project_id, place);');
    this.addSql(
      `create table landing_locks (
        train varchar(255) not null primary key,
        holder varchar(255) not null,
        lease_until bigint not null
      );`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop table landing_locks;');
    this.addSql('drop table merge_train;');
  }
}
