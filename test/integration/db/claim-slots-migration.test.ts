import path from 'node:path';
import { Migrator } from '@mikro-orm/migrations';
import { Database } from '../../../src/db/database';
import { MIGRATIONS } from '../../../src/db/migrations';
import { ormOptions } from '../../../src/db/orm';
import { openPostgresOrm } from '../../../src/db/postgres-orm';
import { TaskStateMachine } from '../../../src/orchestrator/state-machine';
import { claimLaunch } from '../../../src/orchestrator/task-moves';
import { databaseBefore } from '../../support/older-database';
import { adminQuery, createTestDatabase, onPostgres } from '../../support/postgres-databases';
import { makeTempDir } from '../../support/tmp';

const MIGRATION = 'Migration20261126070000_claim_slots';
const quiet = () => undefined;

/** A new PostgreSQL database migrated to just before MIGRATION, with `fill`'s rows. */
async function postgresBefore(
  fill: (sql: (text: string) => Promise<unknown>) => Promise<void>,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const made = await createTestDatabase();
  const name = made.url.slice(made.url.lastIndexOf('/') + 1);
  await adminQuery(`drop database ${name}`);
  await adminQuery(`create database ${name}`);
  const previous = MIGRATIONS[MIGRATIONS.findIndex((m) => m.name === MIGRATION) - 1].name;
  const orm = await openPostgresOrm(made.url, { ...ormOptions('').migrations, migrationsList: MIGRATIONS });
  try {
    Migrator.register(orm as never);
    await orm.getMigrator().up({ to: previous });
    await fill((text) => orm.em.fork().getConnection().execute(text));
  } finally {
    await orm.close(true);
  }
  return made;
}

describe('the claim slots migration', () => {
  let cleanup: () => Promise<void> = async () => undefined;
  afterEach(() => cleanup());

  it('carries runs already going over: a project at or over its cap stays full until they are under it', async () => {
    const now = Date.now();
    const fill = async (sql: (text: string) => Promise<unknown>) => {
      for (const [id, cap] of [
        ['at-cap', 2],
        ['over-cap', 2],
      ] as const) {
        await sql(
          `insert into projects (id, name, max_concurrent_agents, workspace, created_at, updated_at) values ('${id}', '${id}', ${cap}, '/w/${id}', ${now}, ${now})`,
        );
      }
      // Runs going: two in the project capped at 2, three in the one whose cap was lowered under them.
      const running = [
        ['a1', 'at-cap'],
        ['a2', 'at-cap'],
        ['o1', 'over-cap'],
        ['o2', 'over-cap'],
        ['o3', 'over-cap'],
      ];
      for (const [id, project] of running) {
        await sql(
          `insert into tasks (id, project_id, title, description, status, current_run_id, claimed_by, lease_expires_at, created_at, updated_at)
             values ('${id}', '${project}', '${id}', '${id}', 'ASSIGNED', 'run-${id}', 'w', ${now + 600_000}, ${now}, ${now})`,
        );
        await sql(
          `insert into task_runs (id, task_id, worker_id, agent_id, workspace_id, claimed_at) values ('run-${id}', '${id}', 'w', 'old', 'old', ${now})`,
        );
      }
    };
    let db: Database;
    if (onPostgres()) {
      const made = await postgresBefore(fill);
      db = await Database.open(made.url);
      cleanup = async () => {
        await db.close();
        await made.drop();
      };
    } else {
      const tmp = await makeTempDir('aq-migrate-');
      const file = path.join(tmp.dir, 'old.db');
      await databaseBefore(file, MIGRATION, fill);
      db = await Database.open(file);
      cleanup = async () => {
        await db.close();
        await tmp.cleanup();
      };
    }
    for (let i = 0; i < 8; i++) {
      await db.agents.create({ id: `a${i}`, name: `agent ${i}`, type: 'claude', workerId: 'w' });
      await db.workspaces.create({
        id: `ws${i}`,
        projectId: i < 4 ? 'at-cap' : 'over-cap',
        name: `ws${i}`,
        path: `/w/ws${i}`,
        sourceType: 'clone',
        repoId: null,
        workerId: 'w',
      });
    }
    const machine = new TaskStateMachine(db, quiet);
    let tasks = 0;
    const claimNew = async (project: string, agent: number) => {
      const { id } = await db.tasks.create({ projectId: project, title: `new ${++tasks}`, description: 'x' });
      return claimLaunch(db, machine, { taskId: id, agentId: `a${agent}`, workspaceId: `ws${agent}`, workerId: 'w', leaseMs: 60_000 });
    };
    const complete = async (id: string) => {
      const run = new TaskStateMachine({ tasks: db.runRecords.fencedTasks(id, `run-${id}`) }, quiet);
      expect((await run.fire(id, 'AGENT_STARTED', {})).ok).toBe(true);
      expect((await run.fire(id, 'AGENT_COMPLETED', {})).ok).toBe(true);
    };

    expect(await claimNew('at-cap', 0)).toBe('project_full');
    expect(await claimNew('over-cap', 4)).toBe('project_full');
    await complete('a1');
    expect(await claimNew('at-cap', 1)).toBeNull();
    expect(await claimNew('at-cap', 2)).toBe('project_full');
    // Over its cap: one run ending leaves it at the cap; the next makes room for one, at once.
    await complete('o1');
    expect(await claimNew('over-cap', 4)).toBe('project_full');
    await complete('o2');
    const [first, second] = await Promise.all([claimNew('over-cap', 5), claimNew('over-cap', 6)]);
    expect([first, second].filter((r) => r === null)).toHaveLength(1);
    expect([first, second].filter((r) => r !== null)).toEqual(['project_full']);
  });
});
