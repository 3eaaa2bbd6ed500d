/** How many rows of history_counts share the count of events (migration …_event_count_stripes). */
export const EVENT_COUNT_STRIPES = 16;

const stripe = (row: 'new' | 'old') => `'events:' || (${row}.id % ${EVENT_COUNT_STRIPES})`;

/** PostgreSQL's form of the striped event count triggers. */
export const EVENT_COUNT_STRIPE_TRIGGERS = [
  `create function events_count_change() returns trigger language plpgsql as $$
  begin
    if tg_op = 'INSERT' then
      insert into history_counts (name, n) values (${stripe('new')}, 1) on conflict (name) do update set n = history_counts.n + 1;
    else
      insert into history_counts (name, n) values (${stripe('old')}, -1) on conflict (name) do update set n = history_counts.n - 1;
    end if;
    return null;
  end $$`,
  'create trigger events_count_insert after insert on events for each row execute function events_count_change()',
  'create trigger events_count_delete after delete on events for each row execute function events_count_change()',
];
