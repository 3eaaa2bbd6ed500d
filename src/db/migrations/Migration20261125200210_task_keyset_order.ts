import { PortableMigration } from './portable-migration';

/*
 * list_tasks pages by cursor: `(priority, created_at, <insertion order>) > (…)` walked through
 * an order index. Every SQLite index ends in the rowid already; PostgreSQL's order indexes need
 * `seq` at the end to serve the comparison and the order as one range (without it a deep page
 * sorts every match). They replace the indexes they extend.
 */
const ORDERS: Array<[string, string]> = [
  ['tasks_order', 'priority, created_at'],
  ['tasks_project_order', 'project_id, priority, created_at'],
  ['tasks_status_order', 'status, priority, created_at'],
  ['tasks_project_status_order', 'project_id, status, priority, created_at'],
];

export class Migration20261125200210 extends PortableMigration {
  override async up(): Promise<void> {
    if (!this.postgres) return;
    for (const [name, columns] of ORDERS) {
      this.addSql(`create index ${name}_seq on tasks (${columns}, seq);`);
      this.addSql(`drop index ${name};`);
    }
  }

  override async down(): Promise<void> {
    if (!this.postgres) return;
    for (const [name, columns] of ORDERS) {
      this.addSql(`create index ${name} on tasks (${columns});`);
      this.addSql(`drop index ${name}_seq;`);
    }
  }
}
