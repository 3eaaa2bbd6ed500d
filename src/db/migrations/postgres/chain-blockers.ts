/*
 * PostgreSQL's form of the chain_blockers triggers (migration …_chain_blockers). Writers run
 * concurrently here, so a refresh first locks the rows it may change (in task id order, so two
 * refreshes cannot deadlock each other) and only then works `holds_up` out, in a statement that
 * sees what the transaction it waited for committed: a dependency added by one transaction and a
 * dependent COMPLETED by another cannot leave a stale answer.
 */
export const CHAIN_BLOCKER_TRIGGERS = [
  `create function chain_blockers_refresh(ids text[]) returns void language plpgsql as $$
  begin
    perform 1 from chain_blockers where task_id = any(ids) order by task_id for update;
    insert into chain_blockers (task_id, project_id, priority, created_at, holds_up)
      select b.id, b.project_id, b.priority, b.created_at,
             b.status = 'BLOCKED' and exists (select 1 from task_dependencies d join tasks t on t.id = d.task_id
                                               where d.depends_on_id = b.id and t.status <> 'COMPLETED')
        from tasks b
       where b.id = any(ids) and (b.status = 'BLOCKED' or exists (select 1 from chain_blockers c where c.task_id = b.id))
       order by b.id
      on conflict (task_id) do update set project_id = excluded.project_id, priority = excluded.priority,
        created_at = excluded.created_at, holds_up = excluded.holds_up;
  end $$`,
  `create function chain_blockers_task_change() returns trigger language plpgsql as $$
  begin
    if tg_op = 'DELETE' then
      delete from chain_blockers where task_id = old.id;
      return null;
    end if;
    if (old.status = 'COMPLETED') <> (new.status = 'COMPLETED') then
      perform chain_blockers_refresh(array[new.id] || array(select depends_on_id from task_dependencies where task_id = new.id));
    else
      perform chain_blockers_refresh(array[new.id]);
    end if;
    return null;
  end $$`,
  `create trigger chain_blockers_task_update after update of status, project_id, priority, created_at on tasks for each row
    when (old.status is distinct from new.status or old.project_id is distinct from new.project_id
          or old.priority is distinct from new.priority or old.created_at is distinct from new.created_at)
    execute function chain_blockers_task_change()`,
  'create trigger chain_blockers_task_delete after delete on tasks for each row execute function chain_blockers_task_change()',
  `create function chain_blockers_dependency_change() returns trigger language plpgsql as $$
  begin
    if tg_op = 'DELETE' then
      perform chain_blockers_refresh(array[old.depends_on_id]);
    else
      perform chain_blockers_refresh(array[new.depends_on_id]);
    end if;
    return null;
  end $$`,
  `create trigger chain_blockers_dependency_change after insert or delete on task_dependencies for each row
    execute function chain_blockers_dependency_change()`,
];
