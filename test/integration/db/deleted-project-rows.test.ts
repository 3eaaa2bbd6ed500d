import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

/** Every table of the database that has a `project_id` column. */
async function tablesNamingProjects(rt: TestRuntime): Promise<string[]> {
  const conn = rt.db.em().getConnection();
  const rows =
    rt.db.dialect.name === 'postgresql'
      ? await conn.execute<Array<{ name: string }>>(
          "select table_name as name from information_schema.columns where table_schema = current_schema() and column_name = 'project_id'",
        )
      : await conn.execute<Array<{ name: string }>>(
          "select m.name from sqlite_master m join pragma_table_info(m.name) c where m.type = 'table' and c.name = 'project_id'",
        );
  return rows.map((r) => r.name).sort();
}

/** The event log keeps what happened to a project after it is gone: it is history, read by pages. */
const HISTORY = ['events'];

/** The tables that hold rows of `projectId`, with how many (the history aside). */
async function rowsOf(rt: TestRuntime, projectId: string): Promise<Record<string, number>> {
  const conn = rt.db.em().getConnection();
  const found: Record<string, number> = {};
  for (const table of (await tablesNamingProjects(rt)).filter((t) => !HISTORY.includes(t))) {
    const [row] = await conn.execute<Array<{ n: number | string }>>(`select count(*) as n from ${table} where project_id = ?`, [projectId]);
    if (Number(row.n) > 0) found[table] = Number(row.n);
  }
  return found;
}

describe('a deleted project', () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = await makeTestRuntime();
  });
  afterEach(() => rt.cleanup());

  it('leaves no row that names it, so what every read scans does not grow with deleted projects', async () => {
    for (const name of ['gone', 'kept']) {
      await rt.exec('create_project', { name });
      const ids: string[] = [];
      for (let i = 0; i < 4; i++)
        ids.push((await rt.exec('create_task', { project_id: name, title: `t${i}`, description: 'd' })).created as string);
      await rt.exec('add_dependency', { task_id: ids[1], depends_on: ids[0] });
      await rt.exec('set_task_status', { task_id: ids[0], status: 'BLOCKED' });
      await rt.exec('set_task_status', { task_id: ids[2], status: 'FAILED' });
      await rt.exec('set_task_status', { task_id: ids[3], status: 'COMPLETED' });
      await rt.db.tokenUsage.record({
        projectId: name,
        taskId: ids[3],
        agentId: 'agent-1',
        source: 'agent',
        inputTokens: 10,
        outputTokens: 5,
      });
      await rt.exec('set_budget', { project_id: name, tokens: 1000 });
    }
    const before = await rowsOf(rt, 'gone');
    // What the project had: its tasks, its kept counts and totals, its blockers.
    expect(before).toMatchObject({ tasks: 4, task_status_counts: expect.any(Number), token_usage: 1, chain_blockers: 1 });

    expect(await rt.exec('delete_project', { project_id: 'gone' })).toMatchObject({ deleted: 'gone' });
    expect(await rowsOf(rt, 'gone')).toEqual({});
    // The other project's rows are all still there.
    expect(Object.keys(await rowsOf(rt, 'kept')).sort()).toEqual(Object.keys(before).sort());
    expect(await rt.db.tasks.countByStatus('kept')).toEqual({ DEFINED: 1, BLOCKED: 1, FAILED: 1, COMPLETED: 1 });
  });
});
