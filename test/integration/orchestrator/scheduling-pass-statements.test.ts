// @database-dependent: what a scheduling pass reads is the scheduling queries'.
import path from 'node:path';
import { buildSnapshot, type CycleDeps } from '../../../src/orchestrator/cycle';
import { TaskStateMachine } from '../../../src/orchestrator/state-machine';
import { countStatements } from '../../support/statement-counter';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

/**
 * Every pass of the daemon and of each `aq worker` reads the queue's state. Its cost must follow
 * the number of statements, not the number of projects: a read per project (the overlap policy
 * was one, 45 of them a pass in the scheduler bench) multiplies with a team's projects.
 */
describe('a scheduling pass', () => {
  let rt: TestRuntime;

  afterEach(async () => {
    await rt?.cleanup();
  });

  it('reads the state of many projects in as many statements as of a few', async () => {
    rt = await makeTestRuntime({ AQ_AGENTS: '0' });
    await rt.exec('create_agent', { name: 'Solo' });
    const addProjects = async (from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const name = `p${i}`;
        // Every other project serializes overlapping work; all have a free workspace and a READY task.
        await rt.exec('create_project', { name, ...(i % 2 === 0 && { overlap_policy: 'serialize' }) });
        await rt.db.workspaces.create({
          id: `${name}-ws`,
          projectId: name,
          name: 'ws',
          path: path.join(rt.home, name),
          sourceType: 'clone',
          repoId: null,
        });
        await rt.exec('create_task', { project_id: name, title: `Edit src/${name}.ts`, description: 'd' });
      }
    };
    const deps: CycleDeps = {
      db: rt.db,
      events: rt.events,
      machine: new TaskStateMachine(rt.db, () => undefined),
      git: rt.git,
      provisioning: { git: rt.git, retryMs: 60_000 },
      now: () => new Date(),
      windowMs: 24 * 3600_000,
      log: () => undefined,
    };
    const statementsOfAPass = async () => {
      const counter = countStatements(rt.db);
      try {
        const snapshot = await buildSnapshot(deps, { globalPaused: false, excludeWorkspaceIds: new Set(), blocked: [] });
        return { statements: counter.count, projectsWithWork: Object.keys(snapshot.readyTasks).length };
      } finally {
        counter.stop();
      }
    };

    await addProjects(0, 3);
    const few = await statementsOfAPass();
    await addProjects(3, 12);
    const many = await statementsOfAPass();
    expect([few.projectsWithWork, many.projectsWithWork]).toEqual([3, 12]);
    expect(many.statements).toBe(few.statements);
  });
});
