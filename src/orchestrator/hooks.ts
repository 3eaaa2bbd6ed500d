import type { Database } from '../db/database';
import type { EventRecord } from '../db/repositories/events';
import type { HookDefinition } from '../db/repositories/hook-runs';
import type { CommandPort } from './command-port';
import type { EventLog } from './events';
import type { HookEnginePort } from './port';
import { runHookStep, shortCircuitReason, type StepEnvironment } from './hook-steps';
import { renderHookPrompt, type StepResult } from './hook-template';
import { errorMessage } from '../util/error-message';
import { cutWhole } from '../util/whole-characters';

/** Runs a hook's prompt through the model, which reaches commands through the catalog. */
export type HookModelRunner = (input: { hook: HookDefinition; prompt: string }) => Promise<{ text: string; tokensUsed: number }>;

export interface HookEngineDeps {
  db: Database;
  events: EventLog;
  /** The commands its steps run, as the hook (the same catalog people use). */
  commands: CommandPort;
  /** Null when no model is configured: hooks then run their context steps only. */
  runModel: HookModelRunner | null;
  maxConcurrent?: number;
  now?: () => Date;
  log?: (message: string) => void;
}

/** Events about hook runs never trigger hooks, so a hook cannot feed itself. */
const NON_TRIGGERING = new Set(['hook_run_completed', 'hook_run_failed', 'hook_run_skipped', 'task_progress']);

const RESPONSE_PREVIEW = 1500;

/**
 * Periodic and event hooks: context steps, templated prompt, model call, recorded run.
 * Cooldowns count from launch and are stored, so a restart does not fire every hook again.
 */
export class HookEngine implements HookEnginePort {
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly maxConcurrent: number;
  private readonly now: () => Date;
  private readonly log: (message: string) => void;
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly deps: HookEngineDeps) {
    this.maxConcurrent = deps.maxConcurrent ?? 2;
    this.now = deps.now ?? (() => new Date());
    this.log = deps.log ?? ((m) => console.error(m));
  }

  /** Listens for events; periodic hooks are checked by `tick()`, which the orchestrator calls. */
  start(): void {
    if (!this.unsubscribe) this.unsubscribe = this.deps.events.subscribe((event) => this.onEvent(event));
    void this.deps.db.hookRuns.failAbandonedRuns().catch((err) => this.log(`Hook start-up: ${String(err)}`));
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  /** Resolves when every run in flight has finished. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight.values()]);
  }

  async tick(): Promise<void> {
    const now = this.now().getTime();
    for (const hook of await this.deps.db.hookRuns.enabledHooks()) {
      if (hook.trigger.type !== 'periodic') continue;
      const interval = Number(hook.trigger.interval_seconds);
      if (!Number.isFinite(interval) || interval <= 0) continue;
      const since = (hook.lastRunAt ?? hook.createdAt).getTime();
      if (now - since >= interval * 1000) await this.launch(hook, 'periodic', null, false);
    }
  }

  async onEvent(event: EventRecord): Promise<void> {
    if (NON_TRIGGERING.has(event.type)) return;
    for (const hook of await this.deps.db.hookRuns.enabledHooks()) {
      if (hook.trigger.type !== 'event' || hook.trigger.event_type !== event.type) continue;
      if (event.projectId && event.projectId !== hook.projectId) continue;
      const data = {
        type: event.type,
        project_id: event.projectId,
        task_id: event.taskId,
        agent_id: event.agentId,
        ...event.payload,
      };
      await this.launch(hook, `event:${event.type}`, data, false);
    }
  }

  async fire(hookId: string): Promise<string | null> {
    const hook = await this.deps.db.hookRuns.hook(hookId);
    if (!hook) return `Hook '${hookId}' not found.`;
    if (this.inFlight.has(hookId)) return `Hook '${hookId}' is already running; wait for it to finish.`;
    const launched = await this.launch(hook, 'manual', null, true);
    return launched ? null : `Hook '${hookId}' could not start: ${this.maxConcurrent} hook(s) are already running.`;
  }

  private async launch(hook: HookDefinition, reason: string, event: Record<string, unknown> | null, manual: boolean): Promise<boolean> {
    if (this.inFlight.has(hook.id) || this.inFlight.size >= this.maxConcurrent) return false;
    // Hold the slot before the first await, so a concurrent launch in this process sees it.
    let release: () => void = () => undefined;
    this.inFlight.set(hook.id, new Promise<void>((resolve) => (release = resolve)));
    try {
      const claimed = await this.deps.db.hookRuns.claimLaunch(hook.id, this.now(), hook.cooldownSeconds, manual);
      if (!claimed) {
        this.inFlight.delete(hook.id);
        return false;
      }
      const runId = await this.deps.db.hookRuns.startRun(hook, reason, event);
      const run = this.execute(hook, runId, event)
        .catch((err) => this.log(`Hook ${hook.id} crashed: ${String(err)}`))
        .finally(() => {
          this.inFlight.delete(hook.id);
          release();
        });
      this.inFlight.set(hook.id, run);
      return true;
    } catch (err) {
      this.inFlight.delete(hook.id);
      throw err;
    } finally {
      if (this.inFlight.get(hook.id) === undefined) release();
    }
  }

  private async execute(hook: HookDefinition, runId: string, event: Record<string, unknown> | null): Promise<void> {
    const results: StepResult[] = [];
    try {
      const project = await this.deps.db.projects.get(hook.projectId);
      const env: StepEnvironment = {
        projectId: hook.projectId,
        workspacePath: project?.workspace ?? process.cwd(),
        commands: this.deps.commands,
        event,
        previous: results,
      };
      for (const [index, step] of hook.contextSteps.entries()) {
        const result = await runHookStep(step, env).catch((err: unknown) => ({
          error: errorMessage(err),
        }));
        results.push({ ...result, _step_index: index });
        const skip = shortCircuitReason(step, result);
        if (skip)
          return await this.finish(hook, runId, event, {
            status: 'skipped',
            contextResults: results,
            skippedReason: `step_${index}: ${skip}`,
          });
      }
      if (hook.trigger.skip_llm === true) {
        return await this.finish(hook, runId, event, { status: 'completed', contextResults: results, skippedReason: 'skip_llm' });
      }
      const prompt = renderHookPrompt(hook.promptTemplate, results, event);
      if (!this.deps.runModel) {
        return await this.finish(hook, runId, event, {
          status: 'skipped',
          contextResults: results,
          promptSent: prompt,
          skippedReason: 'no model configured (set ANTHROPIC_API_KEY)',
        });
      }
      const answer = await this.deps.runModel({ hook, prompt });
      await this.finish(hook, runId, event, {
        status: 'completed',
        contextResults: results,
        promptSent: prompt,
        llmResponse: answer.text,
        tokensUsed: answer.tokensUsed,
      });
    } catch (err) {
      await this.finish(hook, runId, event, {
        status: 'failed',
        contextResults: results,
        llmResponse: errorMessage(err),
      });
    }
  }

  /** Records the outcome and tells everyone; a run an event about a task started is about that task too. */
  private async finish(
    hook: HookDefinition,
    runId: string,
    event: Record<string, unknown> | null,
    outcome: Parameters<Database['hookRuns']['finishRun']>[1],
  ): Promise<void> {
    await this.deps.db.hookRuns.finishRun(runId, outcome);
    const type =
      outcome.status === 'completed' ? 'hook_run_completed' : outcome.status === 'failed' ? 'hook_run_failed' : 'hook_run_skipped';
    await this.deps.events.emit(type, {
      projectId: hook.projectId,
      taskId: typeof event?.task_id === 'string' && event.task_id ? event.task_id : null,
      payload: {
        hook_id: hook.id,
        hook_name: hook.name,
        run_id: runId,
        status: outcome.status,
        tokens_used: outcome.tokensUsed ?? 0,
        ...(outcome.skippedReason && { skipped_reason: outcome.skippedReason }),
        ...(outcome.llmResponse && { response: cutWhole(outcome.llmResponse, RESPONSE_PREVIEW) }),
      },
    });
  }
}
