import { Database } from '../../../src/db/database';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

const DAY = 24 * 60 * 60 * 1000;
const NAMES = Array.from({ length: 20 }, (_, i) => `pod-${String(i).padStart(2, '0')}`);

describe('forgetting silent workers while others register, each on its own connection', () => {
  let rt: TestRuntime;
  let connections: Database[];
  beforeEach(async () => {
    rt = await makeTestRuntime();
    connections = [];
  });
  afterEach(async () => {
    for (const db of connections) await db.close();
    await rt.cleanup();
  });

  it('forgets exactly the workers still silent, with their agents and workspaces (but one the merge train lands in); the ones that came back keep theirs', async () => {
    const longAgo = Date.now() - 2 * DAY;
    for (const name of NAMES) {
      await rt.db.workers.register({ name, host: `${name}.example`, capacity: 2, labels: [], leaseMs: 30_000 }, longAgo);
      await rt.db.workers.ensureAgents(name, 2, new Date(longAgo));
    }
    const back = NAMES.filter((_, i) => i % 2 === 0);
    const silent = NAMES.filter((_, i) => i % 2 === 1);
    // Each has a workspace; two silent ones a second, held by a task: one waiting in the merge
    // train (which lands it there), one the train sent back to its agent.
    await rt.exec('create_project', { name: 'web' });
    const task = async (title: string) =>
      (await rt.exec('create_task', { project_id: 'web', title, description: title })).created as string;
    const [queued, sentBack] = [await task('Queued to land'), await task('Sent back')];
    await rt.db.mergeTrain.enter({ taskId: queued, projectId: 'web', train: 'web' }, longAgo);
    await rt.db.mergeTrain.enter({ taskId: sentBack, projectId: 'web', train: 'web' }, longAgo);
    await rt.db.mergeTrain.advance(sentBack, ['waiting'], 'sent_back', longAgo);
    const workspace = (workerId: string, name: string) =>
      rt.db.workspaces.create({
        id: `${workerId}-${name}`,
        projectId: 'web',
        name,
        path: `/machines/${workerId}/${name}`,
        sourceType: 'clone',
        repoId: null,
        workerId,
      });
    for (const name of NAMES) await workspace(name, 'ws-1');
    for (const [name, holder] of [
      [silent[0], queued],
      [silent[1], sentBack],
    ]) {
      await workspace(name, 'ws-2');
      expect(await rt.db.workspaces.acquire(`${name}-ws-2`, holder, null)).toBe(true);
    }
    for (let i = 0; i < 6; i++) connections.push(await Database.open(rt.config.database));
    const now = Date.now();
    const [forgotten] = await Promise.all([
      Promise.all(connections.slice(0, 3).map((db) => db.workers.forgetSilentSince(now - DAY))),
      ...connections.slice(3).map(async (db, k) => {
        for (const name of back.filter((_, i) => i % 3 === k)) {
          await db.workers.register({ name, host: `${name}.example`, capacity: 2, labels: [], leaseMs: 30_000 }, now);
          await db.workers.ensureAgents(name, 2, new Date(now));
        }
      }),
    ]);

    // Each silent one was forgotten by one of the three, or more (each saw it gone).
    expect([...new Set(forgotten.flat())].filter((name) => silent.includes(name)).sort()).toEqual(silent);
    const workers = await rt.db.workers.list();
    expect(workers.map((w) => w.name)).toEqual(back);
    const agents = await rt.db.agents.listWithWork();
    expect(agents.map((a) => a.id).sort()).toEqual(back.flatMap((name) => [`${name}-agent-1`, `${name}-agent-2`]).sort());
    // The silent ones keep only the workspace the train lands in. One that came back keeps its
    // own, unless a forgetter removed its row before it registered again (it then says so).
    const ids = (await rt.db.workspaces.list('web')).map((w) => w.id);
    expect(ids.filter((id) => silent.some((name) => id.startsWith(`${name}-`)))).toEqual([`${silent[0]}-ws-2`]);
    const forgottenAndBack = new Set(forgotten.flat().filter((name) => back.includes(name)));
    expect(back.filter((name) => !ids.includes(`${name}-ws-1`) && !forgottenAndBack.has(name))).toEqual([]);
  });
});
