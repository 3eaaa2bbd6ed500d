/*
 * PostgreSQL's forms of the SQLite triggers that keep the count and totals tables exact
 * (migrations …_task_status_counts, …_token_usage_totals, …_history_counts): one PL/pgSQL
 * function per table. Unlike SQLite, PostgreSQL runs writers concurrently, so a new totals row is
 * detected by the upsert itself (`xmax = 0` on the returned row) instead of by a prior read that
 * a concurrent transaction could make stale.
 */

export const TASK_STATUS_COUNT_TRIGGERS = [
  `create function tasks_count_change() returns trigger language plpgsql as $$
  begin
    if tg_op in ('DELETE', 'UPDATE') then
      update task_status_counts set n = n - 1 where project_id = old.project_id and status = old.status;
    end if;
    if tg_op in ('INSERT', 'UPDATE') then
      insert into task_status_counts (project_id, status, n) values (new.project_id, new.status, 1)
        on conflict (project_id, status) do update set n = task_status_counts.n + 1;
    end if;
    return null;
  end $$`,
  'create trigger tasks_count_insert after insert on tasks for each row execute function tasks_count_change()',
  'create trigger tasks_count_delete after delete on tasks for each row execute function tasks_count_change()',
  `create trigger tasks_count_update after update of status, project_id on tasks for each row
    when (old.status is distinct from new.status or old.project_id is distinct from new.project_id)
    execute function tasks_count_change()`,
];

const matches = (row: 'new' | 'old') =>
  `project_id = coalesce(${row}.project_id, '') and task_id = coalesce(${row}.task_id, '') and agent_id = coalesce(${row}.agent_id, '')`;

export const TOKEN_USAGE_TOTALS_TRIGGERS = [
  `create function token_usage_totals_change() returns trigger language plpgsql as $$
  declare
    created boolean;
    remaining bigint;
    gone integer := 0;
  begin
    if tg_op in ('DELETE', 'UPDATE') then
      update token_usage_totals set tokens = tokens - old.tokens, entries = entries - 1 where ${matches('old')}
        returning entries into remaining;
      if remaining is not null and remaining <= 0 then
        delete from token_usage_totals where ${matches('old')} and entries <= 0;
        gone := 1;
      end if;
      update token_usage_project_totals
         set tokens = tokens - old.tokens, entries = entries - 1, task_agent_rows = task_agent_rows - gone
       where project_id = coalesce(old.project_id, '');
      delete from token_usage_project_totals where project_id = coalesce(old.project_id, '') and entries <= 0;
    end if;
    if tg_op in ('INSERT', 'UPDATE') then
      insert into token_usage_totals (project_id, task_id, agent_id, tokens, entries)
        values (coalesce(new.project_id, ''), coalesce(new.task_id, ''), coalesce(new.agent_id, ''), new.tokens, 1)
        on conflict (project_id, task_id, agent_id)
          do update set tokens = token_usage_totals.tokens + excluded.tokens, entries = token_usage_totals.entries + 1
        returning (xmax = 0) into created;
      insert into token_usage_project_totals (project_id, tokens, entries, task_agent_rows)
        values (coalesce(new.project_id, ''), new.tokens, 1, case when created then 1 else 0 end)
        on conflict (project_id) do update set tokens = token_usage_project_totals.tokens + excluded.tokens,
          entries = token_usage_project_totals.entries + 1,
          task_agent_rows = token_usage_project_totals.task_agent_rows + excluded.task_agent_rows;
    end if;
    return null;
  end $$`,
  'create trigger token_usage_totals_insert after insert on token_usage for each row execute function token_usage_totals_change()',
  'create trigger token_usage_totals_delete after delete on token_usage for each row execute function token_usage_totals_change()',
  `create trigger token_usage_totals_update after update of project_id, task_id, agent_id, tokens on token_usage for each row
    execute function token_usage_totals_change()`,
];

/** Keeps history_counts for `table`, under the key `key` (an expression over the row `r`). */
export function historyCount(table: string, key: (row: 'new' | 'old') => string): string[] {
  return [
    `create function ${table}_history_change() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        insert into history_counts (name, n) values (${key('new')}, 1) on conflict (name) do update set n = history_counts.n + 1;
      else
        update history_counts set n = n - 1 where name = ${key('old')};
        delete from history_counts where name = ${key('old')} and n <= 0;
      end if;
      return null;
    end $$`,
    `create trigger ${table}_history_insert after insert on ${table} for each row execute function ${table}_history_change()`,
    `create trigger ${table}_history_delete after delete on ${table} for each row execute function ${table}_history_change()`,
  ];
}

export const HISTORY_COUNT_TRIGGERS = [
  ...historyCount('events', () => "'events'"),
  ...historyCount('hook_runs', (row) => `'hook_runs:' || ${row}.hook_id`),
];
