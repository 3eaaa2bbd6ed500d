import type { AutomationRecord } from '../db/repositories/automations';
import { nextRunAfter } from './automation-schedule';
import { countFailure, fireAutomation, settleTaskOutcomes, type FiringDeps, type FiringResult } from './automation-firing';
import { runShellStep } from './hook-steps';
import { pathValue } from './hook-template';
import { cutWhole } from '../util/whole-characters';

export interface AutomationEngineDeps extends FiringDeps {
  log: (message: string) => void;
}

/** What one run of a schedule did: one firing, or one per discovered item. */
export interface ScheduleRunResult {
  firings: FiringResult[];
  /** Set when the run could not start (a discovery command that failed). */
  error?: string;
}

const DISCOVERY_LIMIT = 50;

/** The items a discovery command printed: a JSON array, or an object holding one under `items`. */
function discoveredItems(stdout: string): Array<Record<string, unknown>> | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout.trim() || '[]');
  } catch {
    return null;
  }
  const list = Array.isArray(parsed) ? parsed : (parsed as { items?: unknown } | null)?.items;
  if (!Array.isArray(list)) return null;
  return list.filter((i): i is Record<string, unknown> => !!i && typeof i === 'object' && !Array.isArray(i));
}

/**
 * A schedule's run: a task from its template, or, for a discovery schedule, its query command
 * (run as a hook's `shell` context step in the project's folder) and one task per item whose key
 * no earlier run has seen.
 */
export async function runSchedule(deps: AutomationEngineDeps, a: AutomationRecord, firedBy: string): Promise<ScheduleRunResult> {
  const discovery = a.settings.discovery as { command?: string; key?: string; timeout?: number } | undefined;
  if (!discovery?.command) return { firings: [await fireAutomation(deps, a, { firedBy })] };
  const project = await deps.db.projects.get(a.projectId);
  const result = await runShellStep(
    { command: discovery.command, timeout: discovery.timeout ?? 60 },
    { workspacePath: project?.workspace ?? process.cwd(), event: null, previous: [] },
  );
  const items = result.exit_code === 0 ? discoveredItems(String(result.stdout ?? '')) : null;
  if (!items) {
    const error =
      result.exit_code === 0
        ? 'Its discovery command did not print a JSON list (or an object with "items").'
        : `Its discovery command exited with ${String(result.exit_code)}${result.stderr ? `: ${cutWhole(String(result.stderr).trim(), 300)}` : ''}.`;
    await deps.db.automations.recordRun({
      automationId: a.id,
      at: deps.now().getTime(),
      firedBy,
      outcome: 'failed',
      reason: error,
      taskId: null,
      dedupKey: null,
    });
    await countFailure(deps, a, error);
    return { firings: [], error };
  }
  const keyPath = (discovery.key ?? 'id').split('.');
  const firings: FiringResult[] = [];
  for (const item of items.slice(0, DISCOVERY_LIMIT)) {
    const key = pathValue(item, keyPath);
    if (key === undefined || key === null || key === '') continue;
    const fresh = (await deps.db.automations.get(a.id)) ?? a;
    firings.push(await fireAutomation(deps, fresh, { firedBy: 'discovery', item, dedupKey: `item:${String(key)}` }));
  }
  return { firings };
}

/**
 * Fires due schedules and counts how their tasks ended. Called on the daemon's tick with its
 * clock. A due schedule's next run is moved forward by compare-and-set before it fires, so a
 * restart or another process of the fleet never fires the same run twice. Missed runs (the app
 * was down) fire once, at the first tick after start; the next run is then the first one after
 * that tick.
 */
export class AutomationEngine {
  constructor(private readonly deps: AutomationEngineDeps) {}

  async tick(): Promise<void> {
    await settleTaskOutcomes(this.deps);
    const now = this.deps.now().getTime();
    for (const a of await this.deps.db.automations.dueSchedules(now)) {
      if (a.nextRunAt === null) continue;
      const cron = String(a.settings.cron ?? '');
      const zone = String(a.settings.timezone ?? 'UTC');
      let next: number | null;
      try {
        next = nextRunAfter(cron, zone, now);
      } catch {
        next = null;
      }
      if (!(await this.deps.db.automations.claimRun(a.id, a.nextRunAt, next, now))) continue;
      await runSchedule(this.deps, a, 'schedule').catch((err) => this.deps.log(`Automation ${a.id} failed to run: ${String(err)}`));
    }
  }
}
