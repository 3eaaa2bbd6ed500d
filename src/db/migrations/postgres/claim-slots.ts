/** The tasks' statuses that hold a project slot: a claimed run, working or waiting for a person. */
const RUNNING = "('ASSIGNED', 'IN_PROGRESS', 'WAITING_INPUT')";

/**
 * PostgreSQL's project slots (migration …_claim_slots): a project has `max_concurrent_agents`
 * live rows in project_slots, and a claim takes a free one with FOR UPDATE SKIP LOCKED, so claims
 * of one project no longer take turns on the project's row. Rows are kept by triggers, whatever
 * writes the project or the task: a new project gets its rows, a changed cap refits them
 * (fit_project_slots), and a task that stops running gives its run's slot back.
 */
export const CLAIM_SLOT_TRIGGERS = [
  /*
   * Refits a project's rows to `cap`: every free row goes, the held ones stay (the first `cap`
   * of them live, the rest retired: deleted, not freed, when their run ends), and free rows are
   * added until `cap` are live. Held runs thus fill the live rows first, so a lowered cap admits
   * no claim until the running ones are under it. It locks every row of the project first,
   * waiting for claims in flight; a claim that reaches a locked row passes it over.
   */
  `create function fit_project_slots(p text, cap bigint) returns void language plpgsql as $$
  declare
    live bigint;
  begin
    perform 1 from project_slots where project_id = p order by slot for update;
    delete from project_slots where project_id = p and run_id is null;
    update project_slots s set retired = k.place > cap
      from (select slot, row_number() over (order by retired, slot) as place from project_slots where project_id = p) k
     where s.project_id = p and s.slot = k.slot and s.retired is distinct from (k.place > cap);
    select count(*) into live from project_slots where project_id = p and not retired;
    insert into project_slots (project_id, slot)
      select p, coalesce((select max(slot) from project_slots where project_id = p), -1) + g
        from generate_series(1, cap - live) g;
  end $$`,
  `create function projects_slots_change() returns trigger language plpgsql as $$
  begin
    perform fit_project_slots(new.id, new.max_concurrent_agents);
    return null;
  end $$`,
  'create trigger projects_slots_insert after insert on projects for each row execute function projects_slots_change()',
  `create trigger projects_slots_update after update of max_concurrent_agents on projects for each row
    when (old.max_concurrent_agents is distinct from new.max_concurrent_agents)
    execute function projects_slots_change()`,
  /*
   * A run's slot comes back when its task stops running, however it stops (completion, failure,
   * a stop, a restart, recovery, a lapsed lease's reap) or is deleted. A retired slot goes. A
   * live one passes to a run still going in a retired slot (the cap was lowered under it), so
   * the live slots stay `cap` and no claim gets in until the runs are under it. That hand-over
   * passes over a retired slot another transaction holds (SKIP LOCKED), so it never waits: a
   * cap change holding it refits every row itself. Named after tasks_count_update so it fires
   * after it: the counts rows, then the slot (LOCK-ORDER.md).
   */
  `create function tasks_slot_release() returns trigger language plpgsql as $$
  declare
    heir bigint;
  begin
    delete from project_slots where run_id = old.current_run_id and retired;
    if found then
      return null;
    end if;
    select slot into heir from project_slots where project_id = old.project_id and retired
      order by slot limit 1 for update skip locked;
    if heir is null then
      update project_slots set run_id = null where run_id = old.current_run_id;
    else
      update project_slots set retired = false where project_id = old.project_id and slot = heir;
      delete from project_slots where run_id = old.current_run_id;
    end if;
    return null;
  end $$`,
  `create trigger tasks_slot_release_update after update of status on tasks for each row
    when (old.status in ${RUNNING} and new.status not in ${RUNNING} and old.current_run_id is not null)
    execute function tasks_slot_release()`,
  `create trigger tasks_slot_release_delete after delete on tasks for each row
    when (old.status in ${RUNNING} and old.current_run_id is not null)
    execute function tasks_slot_release()`,
];

/** The slots of the runs already going when the migration runs, then every project fitted to its cap. */
export const CLAIM_SLOT_BACKFILL = [
  `insert into project_slots (project_id, slot, run_id)
     select project_id, row_number() over (partition by project_id order by current_run_id) - 1, current_run_id
       from tasks where status in ${RUNNING} and current_run_id is not null`,
  'select fit_project_slots(id, max_concurrent_agents) from projects',
];
