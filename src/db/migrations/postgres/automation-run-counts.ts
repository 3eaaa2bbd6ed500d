/** The key of history_counts that counts an automation's runs (migration …_log_keyset_order). */
const key = (row: 'new' | 'old') => `'automation_runs:' || ${row}.automation_id`;

/** PostgreSQL's form of the automation run count triggers: as hook_runs', removed at zero. */
export const AUTOMATION_RUN_COUNT_TRIGGERS = [
  `create function automation_runs_count_change() returns trigger language plpgsql as $$
  begin
    if tg_op = 'INSERT' then
      insert into history_counts (name, n) values (${key('new')}, 1) on conflict (name) do update set n = history_counts.n + 1;
    else
      update history_counts set n = n - 1 where name = ${key('old')};
      delete from history_counts where name = ${key('old')} and n <= 0;
    end if;
    return null;
  end $$`,
  'create trigger automation_runs_count_insert after insert on automation_runs for each row execute function automation_runs_count_change()',
  'create trigger automation_runs_count_delete after delete on automation_runs for each row execute function automation_runs_count_change()',
];
