import { PortableMigration } from './portable-migration';
import { EVENT_COUNT_STRIPE_TRIGGERS, EVENT_COUNT_STRIPES } from './postgres/event-count-stripes';

/*
 * Every event insert added 1 to the one `events` row of history_counts, so on PostgreSQL every
 * transaction that wrote an event waited for the previous one to commit: event writers ran one
 * at a time. The count is now split over EVENT_COUNT_STRIPES rows `events:<id mod stripes>`
 * (consecutive ids, as the database's own sequence hands them out, land on different rows) and
 * read as their sum. A stripe may go below zero when older events are deleted; only the sum is a
 * count, so stripes are never removed.
 */
const stripe = (row: 'new' | 'old') => `'events:' || (${row}.id % ${EVENT_COUNT_STRIPES})`;

export class Migration20261125200220 extends PortableMigration {
  override async up(): Promise<void> {
    if (this.postgres) {
      this.addSql('drop trigger if exists events_history_insert on events;');
      this.addSql('drop trigger if exists events_history_delete on events;');
      this.addSql('drop function if exists events_history_change();');
    } else {
      this.addSql('drop trigger if exists `events_history_insert`;');
      this.addSql('drop trigger if exists `events_history_delete`;');
    }
    this.addSql("delete from `history_counts` where `name` = 'events';");
    this.addSql(
      `insert into \`history_counts\` (\`name\`, \`n\`) select 'events:' || (\`id\` % ${EVENT_COUNT_STRIPES}), count(*) from \`events\` group by \`id\` % ${EVENT_COUNT_STRIPES};`,
    );
    if (this.postgres) {
      this.addNativeSql(EVENT_COUNT_STRIPE_TRIGGERS);
      return;
    }
    this.addSql(`create trigger \`events_count_insert\` after insert on \`events\` begin
      insert into history_counts (name, n) values (${stripe('new')}, 1) on conflict (name) do update set n = n + 1;
    end;`);
    this.addSql(`create trigger \`events_count_delete\` after delete on \`events\` begin
      insert into history_counts (name, n) values (${stripe('old')}, -1) on conflict (name) do update set n = n - 1;
    end;`);
  }

  override async down(): Promise<void> {
    // Going back would need the old single-row triggers again; as the earlier migrations, up only.
    this.addSql('select 1;');
  }
}
