import type { SqlEntityManager } from '@mikro-orm/sqlite';
import type { EmFactory } from '../database';
import { generateTaskId } from '../ids';
import { retryingTransaction } from '../retrying-transaction';
import { storedFlag } from './column-values';
import { placeholders } from './run-sql';

export interface PlanChildInput {
  title: string;
  description: string;
  priority: number;
}

/** One step of a plan as it stands: the child task that carries it. */
export interface PlanStepRecord {
  id: string;
  title: string;
  description: string;
  status: string;
  skipped: boolean;
}

/** A plan revised: its steps in their new order, each a standing step kept (its task id) or a new one (null). */
export interface PlanRevision {
  parentId: string;
  steps: Array<{ id: string | null; title: string; description: string }>;
}

export type PlanRevisionOutcome =
  | { ok: true; ids: string[]; added: string[]; removed: string[] }
  /** A step already left DEFINED (it runs or ran), or the steps are not the ones the revision was made from. */
  | { ok: false; started: { id: string; status: string } | null };

export interface PlanChainInput {
  parent: {
    id: string;
    projectId: string;
    requiresApproval: boolean;
    planDepth: number;
    workspaceId: string | null;
    branchName: string | null;
    maxRetries: number;
  };
  planSource: string;
  children: PlanChildInput[];
}

/**
 * Plan steps become a chain of DEFINED subtasks in one transaction: step i waits on step i−1,
 * the first waits on the parent, tasks that waited on the parent now also wait on the last step,
 * and only the last step inherits the parent's approval requirement.
 */
export class PlanChainRepository {
  constructor(private readonly em: EmFactory) {}

  async create(input: PlanChainInput): Promise<Array<{ id: string; title: string }>> {
    if (input.children.length === 0) return [];
    const taken = new Set<string>();
    const ids: string[] = [];
    for (let i = 0; i < input.children.length; i++) {
      const id = await generateTaskId(async (candidate) => taken.has(candidate) || (await this.exists(candidate)));
      taken.add(id);
      ids.push(id);
    }
    const { parent } = input;
    return retryingTransaction(this.em, async (em) => {
      const tx = em as SqlEntityManager;
      const now = Date.now();
      const existingDownstream = await tx.execute<Array<{ task_id: string }>>(
        'select task_id from task_dependencies where depends_on_id = ?',
        [parent.id],
      );
      const last = input.children.length - 1;
      for (let i = 0; i < input.children.length; i++) {
        const child = input.children[i];
        await tx.execute(
          `insert into tasks (id, project_id, title, description, status, priority, retry_count, max_retries,
              requires_approval, branch_name, parent_task_id, is_plan_subtask, plan_depth, plan_source, auto_tasks,
              preferred_workspace_id, skipped, created_at, updated_at)
           values (?, ?, ?, ?, 'DEFINED', ?, 0, ?, ?, ?, ?, true, ?, ?, false, ?, false, ?, ?)`,
          [
            ids[i],
            parent.projectId,
            child.title,
            child.description,
            child.priority,
            parent.maxRetries,
            i === last && parent.requiresApproval,
            parent.branchName,
            parent.id,
            parent.planDepth + 1,
            input.planSource,
            parent.workspaceId,
            now + i, // keeps the chain in order among equal priorities
            now + i,
          ],
        );
        await tx.execute('insert into task_dependencies (task_id, depends_on_id) values (?, ?)', [
          ids[i],
          i === 0 ? parent.id : ids[i - 1],
        ]);
      }
      for (const { task_id } of existingDownstream) {
        await tx.execute('insert into task_dependencies (task_id, depends_on_id) values (?, ?) on conflict do nothing', [
          task_id,
          ids[last],
        ]);
      }
      return input.children.map((c, i) => ({ id: ids[i], title: c.title }));
    });
  }

  /**
   * The steps of the plan a task made, in the chain's order (each step waits on the one before;
   * the first on the parent). Steps the chain no longer reaches follow in creation order.
   */
  async steps(parentId: string): Promise<PlanStepRecord[]> {
    const em = this.em();
    const rows = await em.execute<Array<{ id: string; title: string; description: string; status: string; skipped: unknown }>>(
      'select id, title, description, status, skipped from tasks where parent_task_id = ? and is_plan_subtask = true order by created_at, id',
      [parentId],
    );
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    const edges = await em.execute<Array<{ task_id: string; depends_on_id: string }>>(
      `select task_id, depends_on_id from task_dependencies where task_id in (${placeholders(ids)})`,
      ids,
    );
    const next = new Map<string, string>();
    for (const e of edges) if (e.depends_on_id === parentId || ids.includes(e.depends_on_id)) next.set(e.depends_on_id, e.task_id);
    const ordered: string[] = [];
    for (let at = next.get(parentId); at && !ordered.includes(at); at = next.get(at)) ordered.push(at);
    for (const id of ids) if (!ordered.includes(id)) ordered.push(id);
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ordered.map((id) => {
      const r = byId.get(id)!;
      return { id, title: r.title, description: r.description, status: r.status, skipped: storedFlag(r.skipped) };
    });
  }

  /**
   * Rewrites a plan's chain in one transaction, only while every step still waits (DEFINED):
   * removed steps are deleted, new ones inserted like the plan's first ones, titles and
   * descriptions set, the chain rebuilt in the new order (the first waits on the parent), the
   * tasks that waited on the plan wait on its new last step, which alone keeps the approval
   * requirement, and priorities follow the order.
   */
  async revise(revision: PlanRevision): Promise<PlanRevisionOutcome> {
    const fresh = revision.steps.filter((s) => s.id === null).length;
    const taken = new Set<string>();
    const newIds: string[] = [];
    for (let i = 0; i < fresh; i++) {
      const id = await generateTaskId(async (candidate) => taken.has(candidate) || (await this.exists(candidate)));
      taken.add(id);
      newIds.push(id);
    }
    const { parentId } = revision;
    return retryingTransaction(this.em, async (em) => {
      const tx = em as SqlEntityManager;
      type Child = {
        id: string;
        status: string;
        requires_approval: unknown;
        project_id: string;
        max_retries: number;
        branch_name: string | null;
        plan_depth: number;
        plan_source: string | null;
        preferred_workspace_id: string | null;
      };
      const children = await tx.execute<Child[]>(
        `select id, status, requires_approval, project_id, max_retries, branch_name, plan_depth, plan_source, preferred_workspace_id
           from tasks where parent_task_id = ? and is_plan_subtask = true`,
        [parentId],
      );
      const started = children.find((c) => c.status !== 'DEFINED');
      if (started) return { ok: false, started: { id: started.id, status: started.status } };
      const current = children.map((c) => c.id);
      const kept = revision.steps.flatMap((s) => (s.id === null ? [] : [s.id]));
      if (children.length === 0 || kept.some((id) => !current.includes(id)) || revision.steps.length === 0)
        return { ok: false, started: null };
      const removed = current.filter((id) => !kept.includes(id));
      const template = children[0];
      const approval = children.some((c) => storedFlag(c.requires_approval));
      const [parent] = await tx.execute<Array<{ priority: number }>>('select priority from tasks where id = ?', [parentId]);
      const downstream = await tx.execute<Array<{ task_id: string }>>(
        `select distinct task_id from task_dependencies where depends_on_id in (${placeholders(current)}) and task_id not in (${placeholders(current)})`,
        [...current, ...current],
      );
      await tx.execute(`delete from task_dependencies where task_id in (${placeholders(current)})`, current);
      await tx.execute(`delete from task_dependencies where depends_on_id in (${placeholders(current)})`, current);
      if (removed.length > 0) await tx.execute(`delete from tasks where id in (${placeholders(removed)})`, removed);

      const now = Date.now();
      const last = revision.steps.length - 1;
      const ids: string[] = [];
      let next = 0;
      for (let i = 0; i < revision.steps.length; i++) {
        const step = revision.steps[i];
        const priority = Number(parent?.priority ?? 100) + i;
        const requiresApproval = i === last && approval;
        if (step.id !== null) {
          await tx.execute(
            'update tasks set title = ?, description = ?, priority = ?, requires_approval = ?, updated_at = ? where id = ?',
            [step.title, step.description, priority, requiresApproval, now, step.id],
          );
          ids.push(step.id);
          continue;
        }
        const id = newIds[next++];
        await tx.execute(
          `insert into tasks (id, project_id, title, description, status, priority, retry_count, max_retries,
              requires_approval, branch_name, parent_task_id, is_plan_subtask, plan_depth, plan_source, auto_tasks,
              preferred_workspace_id, skipped, created_at, updated_at)
           values (?, ?, ?, ?, 'DEFINED', ?, 0, ?, ?, ?, ?, true, ?, ?, false, ?, false, ?, ?)`,
          [
            id,
            template.project_id,
            step.title,
            step.description,
            priority,
            template.max_retries,
            requiresApproval,
            template.branch_name,
            parentId,
            template.plan_depth,
            template.plan_source,
            template.preferred_workspace_id,
            now + i,
            now + i,
          ],
        );
        ids.push(id);
      }
      for (let i = 0; i < ids.length; i++) {
        await tx.execute('insert into task_dependencies (task_id, depends_on_id) values (?, ?)', [ids[i], i === 0 ? parentId : ids[i - 1]]);
      }
      for (const { task_id } of downstream) {
        await tx.execute('insert into task_dependencies (task_id, depends_on_id) values (?, ?) on conflict do nothing', [
          task_id,
          ids[last],
        ]);
      }
      return { ok: true, ids, added: newIds, removed };
    });
  }

  private async exists(id: string): Promise<boolean> {
    const rows = await this.em().execute<Array<{ n: number }>>('select count(*) as n from tasks where id = ?', [id]);
    return Number(rows[0]?.n ?? 0) > 0;
  }
}
