// @database-dependent: status moves are compare-and-set in SQL.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import { TASK_STATUSES } from '../../../src/db/value-sets';
import { nextStatus, statusesAccepting, TaskStateMachine } from '../../../src/orchestrator/state-machine';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

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
    // TaskRepository.transition, the move the state machine makes: one statement.
    expect(writes).toEqual(['src/db/repositories/tasks.ts']);
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

  it('reports a missing task', async () => {
    expect(await machine.fire('nope', 'ASSIGN')).toEqual({ ok: false, reason: 'not_found' });
  });
});
