// @database-dependent: usage totals are kept by triggers and summed in SQL.
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

type Reply = Record<string, unknown> & {
  breakdown: Array<Record<string, unknown>>;
  total: number;
  breakdown_total: number;
  next_offset: number | null;
};

/** The kept totals must equal sums over the usage rows themselves, whatever writes happened. */
async function expectTotalsExact(rt: TestRuntime): Promise<void> {
  const conn = rt.db.em().getConnection();
  const pairs = await conn.execute(
    `select coalesce(project_id, '') as project_id, coalesce(task_id, '') as task_id, coalesce(agent_id, '') as agent_id,
            sum(tokens) as tokens, count(*) as entries from token_usage group by 1, 2, 3 order by 1, 2, 3`,
  );
  expect(await conn.execute('select project_id, task_id, agent_id, tokens, entries from token_usage_totals order by 1, 2, 3')).toEqual(
    pairs,
  );
  const projects = await conn.execute(
    `select p, sum(tokens) as tokens, count(*) as entries, count(distinct coalesce(task_id, '') || '|' || coalesce(agent_id, '')) as task_agent_rows
       from (select coalesce(project_id, '') as p, task_id, agent_id, tokens from token_usage) usage group by p order by p`,
  );
  expect(
    await conn.execute('select project_id as p, tokens, entries, task_agent_rows from token_usage_project_totals order by project_id'),
  ).toEqual(projects);
}

/** Every page of a get_token_usage breakdown, followed through next_offset. */
async function allPages(rt: TestRuntime, args: Record<string, unknown>): Promise<{ rows: Array<Record<string, unknown>>; pages: Reply[] }> {
  const pages: Reply[] = [];
  let offset: number | null = 0;
  while (offset !== null) {
    const page = (await rt.exec('get_token_usage', { ...args, offset })) as Reply;
    expect(page.error).toBeUndefined();
    pages.push(page);
    offset = page.next_offset;
  }
  return { rows: pages.flatMap((p) => p.breakdown), pages };
}

describe('get_token_usage on kept totals', () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = await makeTestRuntime();
    await rt.exec('create_project', { name: 'alpha' });
    await rt.exec('create_project', { name: 'beta' });
  });
  afterEach(() => rt.cleanup());

  it('totals match a brute-force sum through inserts, updates, task and project deletion', async () => {
    const tasks: Array<{ id: string; project: string }> = [];
    for (let i = 0; i < 6; i++) {
      const project = i % 2 ? 'alpha' : 'beta';
      tasks.push({
        id: (await rt.exec('create_task', { project_id: project, title: `t${i}`, description: 'd' })).created as string,
        project,
      });
    }
    for (let i = 0; i < 40; i++) {
      const task = tasks[i % tasks.length];
      await rt.db.tokenUsage.record({
        projectId: i % 7 === 0 ? null : task.project,
        taskId: i % 5 === 0 ? null : task.id,
        agentId: i % 3 === 0 ? null : `agent-${i % 4}`,
        source: i % 7 === 0 ? 'chat' : 'agent',
        inputTokens: i * 3,
        outputTokens: i,
        cacheReadTokens: i % 2,
      });
    }
    await expectTotalsExact(rt);
    const conn = rt.db.em().getConnection();
    // Rows moved between tasks, agents and projects, and a token count corrected, keep the totals exact.
    await conn.execute("update token_usage set agent_id = 'agent-9' where id % 4 = 0");
    await conn.execute("update token_usage set project_id = 'beta', tokens = tokens + 5 where id % 6 = 1");
    await expectTotalsExact(rt);

    // A deleted task's usage stays in history (and in the totals).
    const before = (await rt.exec('get_token_usage')) as Reply;
    expect(await rt.exec('delete_task', { task_id: tasks[1].id })).toMatchObject({ deleted: tasks[1].id });
    await expectTotalsExact(rt);
    expect(((await rt.exec('get_token_usage')) as Reply).total).toBe(before.total);

    // A deleted project takes its usage with it.
    const alphaTokens = ((await rt.exec('get_token_usage', { project_id: 'alpha' })) as Reply).total;
    expect(alphaTokens).toBeGreaterThan(0);
    expect(await rt.exec('delete_project', { project_id: 'alpha' })).not.toHaveProperty('error');
    await expectTotalsExact(rt);
    expect(await rt.exec('get_token_usage', { project_id: 'alpha' })).toEqual({
      project_id: 'alpha',
      breakdown: [],
      total: 0,
      breakdown_total: 0,
      next_offset: null,
    });
    const after = (await rt.exec('get_token_usage')) as Reply;
    expect(after.total).toBe(before.total - alphaTokens);
    expect(after.breakdown.map((r) => r.project_id)).not.toContain('alpha');

    // The command's answers equal sums computed here from every usage row.
    const usage = await conn.execute<Array<{ project_id: string | null; task_id: string | null; agent_id: string | null; tokens: number }>>(
      'select project_id, task_id, agent_id, tokens from token_usage',
    );
    const sumWhere = (keep: (r: (typeof usage)[number]) => boolean) => usage.filter(keep).reduce((n, r) => n + Number(r.tokens), 0);
    expect(after.total).toBe(sumWhere(() => true));
    for (const row of after.breakdown) expect(row.tokens).toBe(sumWhere((r) => r.project_id === row.project_id));
    const beta = (await rt.exec('get_token_usage', { project_id: 'beta' })) as Reply;
    expect(beta.total).toBe(sumWhere((r) => r.project_id === 'beta'));
    for (const row of beta.breakdown) {
      expect(row.tokens).toBe(sumWhere((r) => r.project_id === 'beta' && r.task_id === row.task_id && r.agent_id === row.agent_id));
    }
    const task = (await rt.exec('get_token_usage', { task_id: tasks[0].id })) as Reply;
    expect(task.total).toBe(sumWhere((r) => r.task_id === tasks[0].id));
    expect(task.breakdown.reduce((n, r) => n + (r.entries as number), 0)).toBe(usage.filter((r) => r.task_id === tasks[0].id).length);
  });

  it('pages a project breakdown past any size: every row once, largest first, replies bounded', async () => {
    const conn = rt.db.em().getConnection();
    const ids: string[] = [];
    for (let i = 0; i < 250; i++) ids.push(`usage-task-${i}`);
    // 250 tasks × 1 agent and 5 tasks × a second agent: 255 (task, agent) rows.
    const values = ids.map((id, i) => `('alpha', '${id}', 'agent-1', 'agent', ${i * 7 + 1}, ${i * 7 + 1}, 0)`);
    for (let i = 0; i < 5; i++) values.push(`('alpha', '${ids[i]}', 'agent-2', 'agent', 3, 3, 0)`);
    values.push(`('beta', 'other', 'agent-1', 'agent', 1000000, 1000000, 0)`);
    await conn.execute(
      `insert into token_usage (project_id, task_id, agent_id, source, input_tokens, tokens, created_at) values ${values.join(', ')}`,
    );

    const first = (await rt.exec('get_token_usage', { project_id: 'alpha' })) as Reply;
    expect(first.breakdown).toHaveLength(100);
    expect(first).toMatchObject({ project_id: 'alpha', breakdown_total: 255, next_offset: 100 });
    expect(JSON.stringify(first).length).toBeLessThan(10_000);

    const { rows, pages } = await allPages(rt, { project_id: 'alpha' });
    expect(pages.map((p) => p.breakdown.length)).toEqual([100, 100, 55]);
    expect(pages.map((p) => p.next_offset)).toEqual([100, 200, null]);
    expect(new Set(rows.map((r) => `${r.task_id}/${r.agent_id}`)).size).toBe(255);
    const tokens = rows.map((r) => r.tokens as number);
    expect([...tokens].sort((a, b) => b - a)).toEqual(tokens);
    const expectedTotal = 250 * 1 + 7 * ((249 * 250) / 2) + 5 * 3;
    expect(tokens.reduce((a, b) => a + b, 0)).toBe(expectedTotal);
    for (const page of pages) expect(page.total).toBe(expectedTotal);

    const small = (await rt.exec('get_token_usage', { project_id: 'alpha', limit: 10, offset: 250 })) as Reply;
    expect(small.breakdown).toHaveLength(5);
    expect(small.next_offset).toBeNull();
    const past = (await rt.exec('get_token_usage', { project_id: 'alpha', offset: 1000 })) as Reply;
    expect(past).toMatchObject({ breakdown: [], breakdown_total: 255, next_offset: null, total: expectedTotal });

    const overall = (await rt.exec('get_token_usage', { limit: 1 })) as Reply;
    expect(overall).toEqual({
      breakdown: [{ project_id: 'beta', tokens: 1000000 }],
      total: expectedTotal + 1000000,
      breakdown_total: 2,
      next_offset: 1,
    });
    const byAgent = (await rt.exec('get_token_usage', { task_id: ids[0], limit: 1 })) as Reply;
    expect(byAgent).toEqual({
      task_id: ids[0],
      breakdown: [{ agent_id: 'agent-2', tokens: 3, entries: 1 }],
      total: 4,
      breakdown_total: 2,
      next_offset: 1,
    });

    expect(await rt.exec('get_token_usage', { limit: 0 })).toEqual({ error: expect.stringContaining('limit') });
    expect(await rt.exec('get_token_usage', { offset: -1 })).toEqual({ error: expect.stringContaining('offset') });
  });
});
