// @database-dependent: status moves are compare-and-set in SQL.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import { TASK_STATUSES } from '../../../src/db/value-sets';
import { nextStatus, statusesAccepting, TASK_EVENTS, TaskStateMachine, transitions } from '../../../src/orchestrator/state-machine';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { countStatements } from '../../support/statement-counter';
import { onPostgres } from '../../support/postgres-databases';

describe('task state machine table', () => {
  it('allows the happy path and the failure paths', () => {
    expect(nextStatus('DEFINED', 'DEPS_MET')).toBe('READY');
    expect(nextStatus('READY', 'ASSIGN')).toBe('ASSIGNED');
    expect(nextStatus('ASSIGNED', 'AGENT_STARTED')).toBe('IN_PROGRESS');
    expect(nextStatus('IN_PROGRESS', 'AGENT_COMPLETED')).toBe('COMPLETED');
    expect(nextStatus('IN_PROGRESS', 'PR_CREATED')).toBe('AWAITING_APPROVAL');
    expect(nextStatus('IN_PROGRESS', 'AGENT_FAILED')).toBe('FAILED');
    expect(nextStatus('FAILED', 'RETRY')).toBe('READY');
    expect(nextStatus('FAILED', 'MAX_RETRIES')).toBe('BLOCKED');
    expect(nextStatus('IN_PROGRESS', 'RATE_LIMITED')).toBe('PAUSED');
    expect(nextStatus('PAUSED', 'RESUME_TIMER')).toBe('READY');
    expect(nextStatus('IN_PROGRESS', 'RECOVERY')).toBe('READY');
  });

  it('refuses what the table does not list', () => {
    expect(nextStatus('COMPLETED', 'AGENT_STARTED')).toBeNull();
    expect(nextStatus('READY', 'AGENT_COMPLETED')).toBeNull();
    expect(nextStatus('DEFINED', 'ASSIGN')).toBeNull();
    expect(nextStatus('BLOCKED', 'RETRY')).toBeNull();
    expect(nextStatus('IN_PROGRESS', 'ADMIN_RESTART')).toBeNull();
    expect(nextStatus('PAUSED', 'ASSIGN')).toBeNull();
  });

  it('takes a task to one status for each event, wherever it comes from (a move is one compare-and-set)', () => {
    const targets = new Map<string, Set<string>>();
    for (const { event, to } of transitions()) targets.set(event, (targets.get(event) ?? new Set()).add(to));
    const several = [...targets].filter(([, to]) => to.size > 1).map(([event]) => event);
    expect(several).toEqual([]);
    expect(targets.size).toBe(TASK_EVENTS.length);
  });

  it('lets every status but IN_PROGRESS be restarted, and only BLOCKED/FAILED be skipped', () => {
    expect(statusesAccepting('ADMIN_RESTART').sort()).toEqual(TASK_STATUSES.filter((s) => s !== 'IN_PROGRESS').sort());
    expect(statusesAccepting('ADMIN_SKIP').sort()).toEqual(['BLOCKED', 'FAILED']);
  });
});

describe('the state machine is the only door to a task status', () => {
  const root = path.resolve(__dirname, '../../..');
  async function sources(): Promise<Array<{ file: string; text: string }>> {
    const files = await fg(['src/**/*.ts', 'listeners/**/*.ts'], { cwd: root });
    return Promise.all(files.map(async (file) => ({ file, text: await readFile(path.join(root, file), 'utf8') })));
  }

  it('no code but the repository move writes the status column in SQL', async () => {
    const writes = (await sources()).flatMap(({ file, text }) =>
      [...text.matchAll(/update\s+tasks\s+set\b(?:(?!\bwhere\b)[^;`]){0,300}?\bstatus\s*=/gi)].map(() => file),
    );
    // TaskRepository.transition, the move the state machine makes: one statement in PostgreSQL's form and in SQLite's.
    expect(writes).toEqual(['src/db/repositories/tasks.ts', 'src/db/repositories/tasks.ts']);
    const bulkUpdates = (await sources()).filter(({ text }) => /nativeUpdate\(\s*Task\b/.test(text)).map((s) => s.file);
    expect(bulkUpdates).toEqual([]);
  });

  it('only the state machine calls the repository move', async () => {
    const callers = (await sources()).filter(({ text }) => /\btasks\.transition\(/.test(text)).map((s) => s.file);
    expect(callers).toEqual(['src/orchestrator/state-machine.ts']);
  });
});

describe('TaskStateMachine against the database', () => {
  let rt: TestRuntime;
  const logs: string[] = [];
  let machine: TaskStateMachine;
  beforeEach(async () => {
    rt = await makeTestRuntime();
    await rt.db.projects.create({ id: 'p', name: 'p', workspace: rt.home });
    machine = new TaskStateMachine(rt.db, (m) => logs.push(m));
  });
  afterEach(() => rt.cleanup());

  it('applies an allowed move with its changes', async () => {
    const t = await rt.db.tasks.create({ projectId: 'p', title: 't', description: 'd' });
    expect(await machine.fire(t.id, 'ASSIGN', { assignedAgent: 'a1' })).toMatchObject({
      ok: true,
      from: 'READY',
      to: 'ASSIGNED',
      task: { id: t.id, status: 'READY' },
    });
    expect(await rt.db.tasks.get(t.id)).toMatchObject({ status: 'ASSIGNED', assignedAgent: 'a1' });
  });

  it('refuses an invalid move, writes nothing and logs it', async () => {
    const t = await rt.db.tasks.create({ projectId: 'p', title: 't', description: 'd', status: 'COMPLETED' });
    const outcome = await machine.fire(t.id, 'AGENT_FAILED', { retryCount: 9 });
    expect(outcome).toMatchObject({ ok: false, reason: 'refused', from: 'COMPLETED' });
    expect(await rt.db.tasks.get(t.id)).toMatchObject({ status: 'COMPLETED', retryCount: 0 });
    expect(logs.some((l) => l.includes('refused AGENT_FAILED'))).toBe(true);
  });

  it('refuses a move from a status the caller did not expect', async () => {
    const t = await rt.db.tasks.create({ projectId: 'p', title: 't', description: 'd', status: 'FAILED' });
    expect(await machine.fire(t.id, 'RETRY', {}, { from: ['IN_PROGRESS'] })).toMatchObject({ ok: false, reason: 'refused' });
    expect(await rt.db.tasks.get(t.id)).toMatchObject({ status: 'FAILED' });
  });

  it('is compare-and-set: of two racing moves from the same status only one lands', async () => {
    const t = await rt.db.tasks.create({ projectId: 'p', title: 't', description: 'd' });
    const other = new TaskStateMachine(rt.db, () => undefined);
    const [a, b] = await Promise.all([
      machine.fire(t.id, 'ASSIGN', { assignedAgent: 'x' }),
      other.fire(t.id, 'ASSIGN', { assignedAgent: 'y' }),
    ]);
    expect([a.ok, b.ok].filter(Boolean)).toHaveLength(1);
  });

  it('forces any status, saying when no event of the table makes that move', async () => {
    const t = await rt.db.tasks.create({ projectId: 'p', title: 't', description: 'd', status: 'COMPLETED' });
    expect(await machine.force(t.id, 'IN_PROGRESS')).toMatchObject({ ok: true, from: 'COMPLETED', to: 'IN_PROGRESS', outsideTable: true });
    expect(await rt.db.tasks.get(t.id)).toMatchObject({ status: 'IN_PROGRESS' });
    expect(await machine.force(t.id, 'BLOCKED')).toMatchObject({ ok: true, from: 'IN_PROGRESS', outsideTable: false });
    expect(await machine.force('nope', 'READY')).toEqual({ ok: false, reason: 'not_found' });
  });

  it('moves a task in one statement on PostgreSQL (its row read and moved at once), a read and a move on SQLite', async () => {
    const t = await rt.db.tasks.create({ projectId: 'p', title: 't', description: 'd' });
    const counter = countStatements(rt.db);
    try {
      const outcome = await machine.fire(t.id, 'ASSIGN', { assignedAgent: 'a1' });
      expect(outcome).toMatchObject({
        ok: true,
        from: 'READY',
        to: 'ASSIGNED',
        task: { id: t.id, title: 't', status: 'READY', assignedAgent: null },
      });
      expect(counter.count).toBe(onPostgres() ? 1 : 2);
    } finally {
      counter.stop();
    }
    expect(await rt.db.tasks.get(t.id)).toMatchObject({ status: 'ASSIGNED', assignedAgent: 'a1' });
  });

  it('a move that misses says why from where the task is now, and the repository move answers the task as it was', async () => {
    const t = await rt.db.tasks.create({ projectId: 'p', title: 't', description: 'd', status: 'FAILED' });
    // Another process moved it from FAILED to BLOCKED after this caller decided to retry it.
    const moved = await rt.db.tasks.transition(t.id, ['FAILED'], 'BLOCKED');
    expect(moved).toMatchObject({ id: t.id, status: 'FAILED' });
    expect(await machine.fire(t.id, 'RETRY', {}, { quiet: true })).toMatchObject({ ok: false, reason: 'refused', from: 'BLOCKED' });
    expect(await rt.db.tasks.transition(t.id, ['FAILED'], 'READY')).toBeNull();
    expect(await machine.force(t.id, 'COMPLETED')).toMatchObject({ ok: true, from: 'BLOCKED', outsideTable: false });
  });

  it('reports a missing task', async () => {
    expect(await machine.fire('nope', 'ASSIGN')).toEqual({ ok: false, reason: 'not_found' });
  });
});
