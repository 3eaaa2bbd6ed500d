import { noticeWaiting, type CycleDeps } from '../../../src/orchestrator/cycle';
import type { SchedulerSnapshot } from '../../../src/orchestrator/scheduler';

/** A pass with an idle agent and no project waiting on a workspace: nothing to announce. */
const snapshot = (ready: string[]): SchedulerSnapshot => ({
  projects: [],
  readyTasks: { p: ready.map((id) => ({ id, projectId: 'p', priority: 100, createdAt: 0, preferredWorkspaceId: null })) },
  idleAgents: [{ id: 'a-1' }],
  activeAgentCounts: {},
  projectTokenUsage: {},
  tasksCompletedInWindow: {},
  availableWorkspaces: {},
  lockedWorkspaceIds: [],
  globalPaused: false,
  globalBudget: null,
});

describe('the daemon’s memory of workspace-waiting notices', () => {
  it('forgets tasks no longer ready (launched by a worker, deleted), and keeps those still waiting', async () => {
    const notified = new Set(['t-waiting', 't-gone']);
    // No project is scanned, so the pass reaches neither the database nor the event log.
    await noticeWaiting({} as CycleDeps, snapshot(['t-waiting', 't-new']), [], notified);
    expect([...notified]).toEqual(['t-waiting']);
  });
});
