import { PortableMigration } from './portable-migration';

/*
 * Walking a chain downstream (get_chain_health, the stuck chains a blocked task reports) reads,
 * for each task, the tasks that wait on it. The index by `depends_on_id` alone led each of those
 * to the table row for its `task_id`: two lookups a step, on pages spread over the file. With
 * `task_id` in the index a step is one index range, on both databases (an index-only scan on
 * PostgreSQL). It replaces the narrower index, of which it is a superset.
 */
export class Migration20261127080000 extends PortableMigration {
  override async up(): Promise<void> {
    this.addSql('create index `task_dependencies_downstream` on `task_dependencies` (`depends_on_id`, `task_id`);');
    this.addSql('drop index `task_dependencies_upstream`;');
  }

  override async down(): Promise<void> {
    this.addSql('create index `task_dependencies_upstream` on `task_dependencies` (`depends_on_id`);');
    this.addSql('drop index `task_dependencies_downstream`;');
  }
}
