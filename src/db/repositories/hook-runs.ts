import { randomUUID } from 'node:crypto';
import type { HookRunStatus, HookTrigger } from '../value-sets';
import type { EmFactory } from '../database';
import { storableJson, storedDate, storedFlag, storedJson } from './column-values';
import { changes, pageSlice, runSql } from './run-sql';
import type { HookRunRecord } from './hooks';
import { settleAll } from '../../util/settle-all';

/** A hook as the engine needs it. */
export interface HookDefinition {
  id: string;
  projectId: string;
  name: string;
  enabled: boolean;
  trigger: HookTrigger;
  contextSteps: Array<Record<string, unknown>>;
  promptTemplate: string;
  cooldownSeconds: number;
  llmConfig: Record<string, unknown> | null;
  lastRunAt: Date | null;
  createdAt: Date;
}

/** A hook's row as HOOK_SELECT gives it: its JSON columns as their text on both databases. */
interface HookRow {
  id: string;
  project_id: string;
  name: string;
  enabled: boolean | number;
  trigger: string;
  context_steps: string | null;
  prompt_template: string;
  cooldown_seconds: number;
  llm_config: string | null;
  last_run_at: number | null;
  created_at: number;
}

const HOOK_SELECT = `select id, project_id, name, enabled, cast("trigger" as text) as "trigger", cast(context_steps as text) as context_steps,
  prompt_template, cooldown_seconds, cast(llm_config as text) as llm_config, last_run_at, created_at from hooks`;

function toDefinition(h: HookRow): HookDefinition {
  return {
    id: h.id,
    projectId: h.project_id,
    name: h.name,
    enabled: storedFlag(h.enabled),
    trigger: JSON.parse(h.trigger) as HookTrigger,
    contextSteps: (storedJson(h.context_steps) as Array<Record<string, unknown>> | null) ?? [],
    promptTemplate: h.prompt_template,
    cooldownSeconds: Number(h.cooldown_seconds),
    llmConfig: storedJson(h.llm_config) as Record<string, unknown> | null,
    lastRunAt: storedDate(h.last_run_at),
    createdAt: new Date(Number(h.created_at)),
  };
}

export interface RunOutcome {
  status: Exclude<HookRunStatus, 'running'>;
  contextResults?: unknown[];
  promptSent?: string | null;
  llmResponse?: string | null;
  skippedReason?: string | null;
  tokensUsed?: number;
}

/** Where a run stands in a hook's log, newest first: the key keyset paging continues after. */
export interface HookRunPlace {
  startedAt: number;
  id: string;
}

interface HookRunRow {
  id: string;
  trigger_reason: string;
  status: string;
  tokens_used: number | string;
  skipped_reason: string | null;
  started_at: number | string;
  completed_at: number | string | null;
}

/** Storage for the hook engine: which hooks exist, when they last launched, and their runs. */
export class HookRunRepository {
  constructor(private readonly em: EmFactory) {}

  /** A plain select: the engine reads the enabled hooks at every event and every tick, most often to find none. */
  async enabledHooks(): Promise<HookDefinition[]> {
    const rows = await this.em().execute<HookRow[]>(`${HOOK_SELECT} where enabled = ? order by id`, [true]);
    return rows.map(toDefinition);
  }

  async hook(id: string): Promise<HookDefinition | null> {
    const rows = await this.em().execute<HookRow[]>(`${HOOK_SELECT} where id = ?`, [id]);
    return rows[0] ? toDefinition(rows[0]) : null;
  }

  /**
   * Records a launch if the hook is still outside its cooldown (or `force`), atomically, so two
   * processes cannot launch the same hook twice. Returns whether this caller won.
   */
  async claimLaunch(id: string, now: Date, cooldownSeconds: number, force: boolean): Promise<boolean> {
    const threshold = now.getTime() - cooldownSeconds * 1000;
    const cooled = force ? '' : ' and (last_run_at is null or last_run_at <= ?)';
    return (
      (await changes(this.em(), `update hooks set last_run_at = ? where id = ?${cooled}`, [
        now.getTime(),
        id,
        ...(force ? [] : [threshold]),
      ])) > 0
    );
  }

  async startRun(hook: HookDefinition, triggerReason: string, eventData: Record<string, unknown> | null): Promise<string> {
    const id = randomUUID().replace(/-/g, '').slice(0, 12);
    await runSql(
      this.em(),
      `insert into hook_runs (id, hook_id, project_id, trigger_reason, status, event_data, tokens_used, started_at)
       values (?, ?, ?, ?, 'running', ?, 0, ?)`,
      [id, hook.id, hook.projectId, triggerReason, storableJson(eventData), Date.now()],
    );
    return id;
  }

  async finishRun(runId: string, outcome: RunOutcome): Promise<void> {
    await runSql(
      this.em(),
      `update hook_runs set status = ?, context_results = ?, prompt_sent = ?, llm_response = ?, skipped_reason = ?,
                            tokens_used = ?, completed_at = ?
        where id = ?`,
      [
        outcome.status,
        storableJson(outcome.contextResults),
        outcome.promptSent ?? null,
        outcome.llmResponse ?? null,
        outcome.skippedReason ?? null,
        outcome.tokensUsed ?? 0,
        Date.now(),
        runId,
      ],
    );
  }

  /**
   * One page of a hook's runs, newest first (started_at, then id: unique), from `offset` runs in
   * or after the run `after` names (keyset: one range of the (hook_id, started_at, id) index
   * however deep), whether more follow, and how many runs the hook has in all (from the
   * trigger-kept history_counts, so the count does not read the whole history).
   */
  async runsPage(
    hookId: string,
    page: { limit: number; offset: number; after?: HookRunPlace },
  ): Promise<{ runs: HookRunRecord[]; total: number; more: boolean }> {
    const em = this.em();
    const columns = 'id, trigger_reason, status, tokens_used, skipped_reason, started_at, completed_at';
    const order = 'order by started_at desc, id desc';
    const [rows, counts] = await settleAll([
      page.after
        ? em.execute<HookRunRow[]>(
            `select ${columns} from hook_runs where hook_id = ? and (started_at, id) < (?, ?) ${order}${pageSlice({ limit: page.limit + 1 })}`,
            [hookId, page.after.startedAt, page.after.id],
          )
        : em.execute<HookRunRow[]>(
            `select ${columns} from hook_runs where hook_id = ? ${order}${pageSlice({ limit: page.limit + 1, offset: page.offset })}`,
            [hookId],
          ),
      em.execute<Array<{ n: number }>>('select n from history_counts where name = ?', [`hook_runs:${hookId}`]),
    ]);
    return {
      runs: rows.slice(0, page.limit).map((r) => ({
        id: r.id,
        triggerReason: r.trigger_reason,
        status: r.status,
        tokensUsed: Number(r.tokens_used),
        skippedReason: r.skipped_reason ?? null,
        startedAt: new Date(Number(r.started_at)),
        completedAt: storedDate(r.completed_at),
      })),
      total: Number(counts[0]?.n ?? 0),
      more: rows.length > page.limit,
    };
  }

  /** Runs a crashed process left "running" are marked failed at start-up. */
  async failAbandonedRuns(): Promise<number> {
    return changes(this.em(), "update hook_runs set status = 'failed', llm_response = ?, completed_at = ? where status = 'running'", [
      'Interrupted: the daemon stopped during this run.',
      Date.now(),
    ]);
  }
}
