import type { EmFactory } from '../database';
import { dialectOf } from '../dialect';
import { retryingTransaction } from '../retrying-transaction';
import { changes, pageSlice, runSql } from './run-sql';
import { settleAll } from '../../util/settle-all';

export const AUTOMATION_KINDS = ['intake', 'schedule', 'webhook'] as const;
export type AutomationKind = (typeof AUTOMATION_KINDS)[number];
export type AutomationState = 'enabled' | 'paused';

/** What a firing logged: a task created (or proposed, or linked to an earlier one), skipped, or failed. */
export const AUTOMATION_RUN_OUTCOMES = ['created', 'proposed', 'linked', 'skipped', 'failed'] as const;
export type AutomationRunOutcome = (typeof AUTOMATION_RUN_OUTCOMES)[number];

/** An automation as stored. Times are milliseconds since the epoch. */
export interface AutomationRecord {
  id: string;
  name: string;
  kind: AutomationKind;
  projectId: string;
  /** Who created it (a Slack user id), or null for the CLI. */
  owner: string | null;
  state: AutomationState;
  pausedReason: string | null;
  rateLimitPerHour: number;
  /** The task it creates: title, description (with `{{event.…}}` placeholders), priority, requires_approval. */
  template: Record<string, unknown>;
  /** The fields of its kind (cron, secret, channel filters, …). */
  settings: Record<string, unknown>;
  /** The channel an intake automation reads. */
  channelId: string | null;
  nextRunAt: number | null;
  consecutiveFailures: number;
  lastTaskId: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface AutomationRunRecord {
  id: number;
  automationId: string;
  at: number;
  firedBy: string;
  outcome: AutomationRunOutcome;
  reason: string | null;
  taskId: string | null;
  /** How the task it created ended (COMPLETED, FAILED, deleted), once it has. */
  taskOutcome: string | null;
  dedupKey: string | null;
}

export type AutomationChanges = Partial<
  Pick<
    AutomationRecord,
    | 'name'
    | 'state'
    | 'pausedReason'
    | 'rateLimitPerHour'
    | 'template'
    | 'settings'
    | 'channelId'
    | 'nextRunAt'
    | 'consecutiveFailures'
    | 'lastTaskId'
  >
>;

const COLUMNS: Record<keyof AutomationChanges, string> = {
  name: 'name',
  state: 'state',
  pausedReason: 'paused_reason',
  rateLimitPerHour: 'rate_limit_per_hour',
  template: 'task_template',
  settings: 'settings',
  channelId: 'channel_id',
  nextRunAt: 'next_run_at',
  consecutiveFailures: 'consecutive_failures',
  lastTaskId: 'last_task_id',
};

const SELECT =
  'select id, name, kind, project_id, owner, state, paused_reason, rate_limit_per_hour, task_template, settings, channel_id, next_run_at, consecutive_failures, last_task_id, created_at, updated_at from automations';

function parseObject(raw: unknown): Record<string, unknown> {
  if (raw && typeof raw === 'object') return raw as Record<string, unknown>;
  try {
    const parsed = JSON.parse(String(raw ?? '{}')) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const numberOrNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));
const textOrNull = (v: unknown) => (v === null || v === undefined ? null : String(v));

function toRecord(r: Record<string, unknown>): AutomationRecord {
  return {
    id: String(r.id),
    name: String(r.name),
    kind: String(r.kind) as AutomationKind,
    projectId: String(r.project_id),
    owner: textOrNull(r.owner),
    state: String(r.state) as AutomationState,
    pausedReason: textOrNull(r.paused_reason),
    rateLimitPerHour: Number(r.rate_limit_per_hour),
    template: parseObject(r.task_template),
    settings: parseObject(r.settings),
    channelId: textOrNull(r.channel_id),
    nextRunAt: numberOrNull(r.next_run_at),
    consecutiveFailures: Number(r.consecutive_failures),
    lastTaskId: textOrNull(r.last_task_id),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

function toRun(r: Record<string, unknown>): AutomationRunRecord {
  return {
    id: Number(r.id),
    automationId: String(r.automation_id),
    at: Number(r.at),
    firedBy: String(r.fired_by),
    outcome: String(r.outcome) as AutomationRunOutcome,
    reason: textOrNull(r.reason),
    taskId: textOrNull(r.task_id),
    taskOutcome: textOrNull(r.task_outcome),
    dedupKey: textOrNull(r.dedup_key),
  };
}

/** The automations and their run log. */
export class AutomationRepository {
  constructor(private readonly em: EmFactory) {}

  private rows(sql: string, params: unknown[] = []): Promise<Array<Record<string, unknown>>> {
    return this.em().execute(sql, params) as Promise<Array<Record<string, unknown>>>;
  }

  /** Stores a new automation; false when one with that id exists. */
  async create(a: Omit<AutomationRecord, 'state' | 'pausedReason' | 'consecutiveFailures' | 'lastTaskId' | 'updatedAt'>): Promise<boolean> {
    const changed = await changes(
      this.em(),
      `insert into automations (id, name, kind, project_id, owner, state, rate_limit_per_hour, task_template, settings, channel_id, next_run_at, created_at, updated_at)
         values (?, ?, ?, ?, ?, 'enabled', ?, ?, ?, ?, ?, ?, ?) on conflict (id) do nothing`,
      [
        a.id,
        a.name,
        a.kind,
        a.projectId,
        a.owner,
        a.rateLimitPerHour,
        JSON.stringify(a.template),
        JSON.stringify(a.settings),
        a.channelId,
        a.nextRunAt,
        a.createdAt,
        a.createdAt,
      ],
    );
    return changed > 0;
  }

  async get(id: string): Promise<AutomationRecord | null> {
    const [row] = await this.rows(`${SELECT} where id = ?`, [id]);
    return row ? toRecord(row) : null;
  }

  /** Automations, oldest first, optionally of one project or kind; with `page`, one slice (see `count`). */
  async list(
    filter: { projectId?: string; kind?: AutomationKind } = {},
    page?: { limit: number; offset: number },
  ): Promise<AutomationRecord[]> {
    const { where, params } = this.filter(filter);
    return (await this.rows(`${SELECT}${where} order by created_at, id${pageSlice(page)}`, params)).map(toRecord);
  }

  async count(filter: { projectId?: string; kind?: AutomationKind } = {}): Promise<number> {
    const { where, params } = this.filter(filter);
    const [row] = await this.rows(`select count(*) as n from automations${where}`, params);
    return Number(row?.n ?? 0);
  }

  private filter(filter: { projectId?: string; kind?: AutomationKind }): { where: string; params: unknown[] } {
    const clauses: string[] = [];
    const params: unknown[] = [];
    if (filter.projectId) {
      clauses.push('project_id = ?');
      params.push(filter.projectId);
    }
    if (filter.kind) {
      clauses.push('kind = ?');
      params.push(filter.kind);
    }
    return { where: clauses.length ? ` where ${clauses.join(' and ')}` : '', params };
  }

  /** The enabled intake automations reading a channel. */
  async intakeFor(channelId: string): Promise<AutomationRecord[]> {
    return (
      await this.rows(`${SELECT} where channel_id = ? and kind = 'intake' and state = 'enabled' order by created_at, id`, [channelId])
    ).map(toRecord);
  }

  /** Enabled schedules whose next run is due at `now`. */
  async dueSchedules(now: number): Promise<AutomationRecord[]> {
    return (
      await this.rows(
        `${SELECT} where kind = 'schedule' and state = 'enabled' and next_run_at is not null and next_run_at <= ? order by next_run_at, id`,
        [now],
      )
    ).map(toRecord);
  }

  async update(id: string, change: AutomationChanges, now: number): Promise<boolean> {
    const sets: string[] = [];
    const params: unknown[] = [];
    for (const [key, value] of Object.entries(change) as Array<[keyof AutomationChanges, unknown]>) {
      if (value === undefined) continue;
      sets.push(`${COLUMNS[key]} = ?`);
      params.push(key === 'template' || key === 'settings' ? JSON.stringify(value) : value);
    }
    sets.push('updated_at = ?');
    params.push(now, id);
    return (await changes(this.em(), `update automations set ${sets.join(', ')} where id = ?`, params)) > 0;
  }

  /**
   * Moves a schedule's next run from `expected` to `next`, only if no one else has: the one caller
   * that gets true fires this run; every other process (or a restarted one) sees false.
   */
  async claimRun(id: string, expected: number, next: number | null, now: number): Promise<boolean> {
    return (
      (await changes(
        this.em(),
        "update automations set next_run_at = ?, updated_at = ? where id = ? and next_run_at = ? and state = 'enabled'",
        [next, now, id, expected],
      )) > 0
    );
  }

  /** Pauses an enabled automation; false when it was already paused (so only one caller announces it). */
  async pause(id: string, reason: string, now: number): Promise<boolean> {
    return (
      (await changes(
        this.em(),
        "update automations set state = 'paused', paused_reason = ?, updated_at = ? where id = ? and state = 'enabled'",
        [reason, now, id],
      )) > 0
    );
  }

  /** Enables a paused automation again, its failure count cleared and (for schedules) its next run set. */
  async resume(id: string, nextRunAt: number | null, now: number): Promise<boolean> {
    return (
      (await changes(
        this.em(),
        "update automations set state = 'enabled', paused_reason = null, consecutive_failures = 0, next_run_at = ?, updated_at = ? where id = ? and state = 'paused'",
        [nextRunAt, now, id],
      )) > 0
    );
  }

  async delete(id: string): Promise<boolean> {
    return (await changes(this.em(), 'delete from automations where id = ?', [id])) > 0;
  }

  /** Adds one to the failures in a row and answers the new count. */
  async addFailure(id: string): Promise<number> {
    await changes(this.em(), 'update automations set consecutive_failures = consecutive_failures + 1 where id = ?', [id]);
    const [row] = await this.rows('select consecutive_failures from automations where id = ?', [id]);
    return Number(row?.consecutive_failures ?? 0);
  }

  async clearFailures(id: string): Promise<void> {
    await changes(this.em(), 'update automations set consecutive_failures = 0 where id = ?', [id]);
  }

  /**
   * Logs a firing. With a `dedupKey`, only the first firing for that key is logged: a later one
   * answers null (the delivery or item was seen already) and must create nothing.
   */
  async recordRun(run: Omit<AutomationRunRecord, 'id' | 'taskOutcome'>): Promise<number | null> {
    const em = this.em();
    const { changes: inserted, id } = await runSql(
      em,
      `insert into automation_runs (automation_id, at, fired_by, outcome, reason, task_id, dedup_key) values (?, ?, ?, ?, ?, ?, ?)
         on conflict (automation_id, dedup_key) do nothing${dialectOf(em).returningId}`,
      [run.automationId, run.at, run.firedBy, run.outcome, run.reason, run.taskId, run.dedupKey],
    );
    return inserted > 0 ? id : null;
  }

  /** Sets what a logged firing came to. `releaseKey` frees its dedup key, so a retry may try again. */
  async finishRun(
    runId: number,
    result: { outcome: AutomationRunOutcome; reason?: string | null; taskId?: string | null; releaseKey?: boolean },
  ): Promise<void> {
    await changes(
      this.em(),
      `update automation_runs set outcome = ?, reason = ?, task_id = ?${result.releaseKey ? ', dedup_key = null' : ''} where id = ?`,
      [result.outcome, result.reason ?? null, result.taskId ?? null, runId],
    );
  }

  /**
   * Takes an intake's proposed run for a decision (Create or Dismiss), once: the caller that gets
   * true decides it; a second click, or one after a dismissal, gets false.
   */
  async takeProposal(runId: number, automationId: string, reason: string): Promise<boolean> {
    return (
      (await changes(
        this.em(),
        "update automation_runs set outcome = 'failed', reason = ? where id = ? and automation_id = ? and outcome = 'proposed'",
        [reason, runId, automationId],
      )) > 0
    );
  }

  /** The logged firing for a dedup key, if any. */
  async runByKey(automationId: string, dedupKey: string): Promise<AutomationRunRecord | null> {
    const [row] = await this.rows('select * from automation_runs where automation_id = ? and dedup_key = ?', [automationId, dedupKey]);
    return row ? toRun(row) : null;
  }

  /**
   * Takes one of the automation's task slots for a logged firing, unless `limit` runs since `since`
   * hold one already: the run is marked created (its task follows; a failure or skip rewrites it).
   * One process at a time per automation, so racing firings on several machines never pass the
   * limit together: the automation's row lock queues them on PostgreSQL, the write lock on SQLite.
   */
  async takeTaskSlot(automationId: string, runId: number, since: number, limit: number): Promise<{ taken: boolean; created: number }> {
    return retryingTransaction(this.em, async (em) => {
      await em.execute('update automations set id = id where id = ?', [automationId], 'run');
      const [row] = (await em.execute(
        "select count(*) as n from automation_runs where automation_id = ? and at >= ? and outcome in ('created', 'proposed') and id <> ?",
        [automationId, since, runId],
      )) as Array<Record<string, unknown>>;
      const created = Number(row?.n ?? 0);
      if (created >= limit) return { taken: false, created };
      await em.execute(
        "update automation_runs set outcome = 'created', reason = 'Creating its task (or interrupted).' where id = ?",
        [runId],
        'run',
      );
      return { taken: true, created };
    });
  }

  /** Tasks created since `since` (the rate limit counts them). */
  async tasksCreatedSince(automationId: string, since: number): Promise<number> {
    const [row] = await this.rows(
      "select count(*) as n from automation_runs where automation_id = ? and at >= ? and outcome in ('created', 'proposed')",
      [automationId, since],
    );
    return Number(row?.n ?? 0);
  }

  /**
   * A page of an automation's runs, newest first (at, id: unique), from `offset` in or after the
   * run `after` (keyset: one index range however deep), whether more follow, and the kept count.
   */
  async runsPage(
    automationId: string,
    page: { limit: number; offset: number; after?: { at: number; id: number } },
  ): Promise<{ runs: AutomationRunRecord[]; total: number; more: boolean }> {
    const { after, limit, offset } = page;
    const [where, params] = after ? ['and (at, id) < (?, ?)', [after.at, after.id]] : ['', []];
    const sql = `select * from automation_runs where automation_id = ? ${where} order by at desc, id desc${pageSlice({ limit: limit + 1, offset: after ? 0 : offset })}`;
    const [rows, counts] = await settleAll([
      this.rows(sql, [automationId, ...params]),
      this.rows('select n from history_counts where name = ?', [`automation_runs:${automationId}`]),
    ]);
    return { runs: rows.slice(0, page.limit).map(toRun), total: Number(counts[0]?.n ?? 0), more: rows.length > page.limit };
  }

  /** Runs whose task has ended (or was deleted) and whose outcome is not yet counted. */
  async endedTasks(): Promise<Array<{ runId: number; automationId: string; taskId: string; status: string }>> {
    const rows = await this.rows(
      `select r.id, r.automation_id, r.task_id, t.status from automation_runs r left join tasks t on t.id = r.task_id
         where r.task_outcome is null and r.task_id is not null and r.outcome = 'created' and (t.id is null or t.status in ('COMPLETED', 'FAILED'))`,
    );
    return rows.map((r) => ({
      runId: Number(r.id),
      automationId: String(r.automation_id),
      taskId: String(r.task_id),
      status: r.status === null || r.status === undefined ? 'deleted' : String(r.status),
    }));
  }

  /** Records how a run's task ended; false when another process already did (count it once). */
  async settleTaskOutcome(runId: number, outcome: string): Promise<boolean> {
    return (
      (await changes(this.em(), 'update automation_runs set task_outcome = ? where id = ? and task_outcome is null', [outcome, runId])) > 0
    );
  }
}
