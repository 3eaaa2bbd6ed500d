// @database-dependent: status counts, channels and agents are read back through SQL.
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { putTask } from '../../support/task-fixtures';
import { FORGE_READINESS_KEY } from '../../../src/orchestrator/forge-readiness';
import { slackFeatureKey } from '../../../src/db/slack-features';
import { onPostgres } from '../../support/postgres-databases';
import { countStatements } from '../../support/statement-counter';

describe('status, channels and agents', () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = await makeTestRuntime();
    await rt.exec('create_project', { name: 'alpha' });
  });
  afterEach(() => rt.cleanup());

  const NO_DAEMON = 'No daemon is running, so nothing is scheduled: start the app (npm start).';

  it('summarises agents, counts and queues in get_status', async () => {
    const t1 = (await rt.exec('create_task', { project_id: 'alpha', title: 'Run', description: 'd' })).created as string;
    await rt.exec('create_task', { project_id: 'alpha', title: 'Wait', description: 'd', priority: 1 });
    await rt.exec('create_agent', { name: 'Agent One' });
    await rt.exec('create_agent', { name: 'idle' });
    await putTask(rt.db, t1, 'IN_PROGRESS', { assignedAgent: 'agent-one' });
    await rt.db.em().getConnection().execute("update agents set state = 'BUSY', current_task = ? where id = 'agent-one'", [t1]);
    expect(await rt.exec('get_status')).toEqual({
      projects: 1,
      agents: [
        {
          id: 'agent-one',
          name: 'Agent One',
          state: 'BUSY',
          working_on: { task_id: t1, title: 'Run', project_id: 'alpha', status: 'IN_PROGRESS' },
        },
        { id: 'idle', name: 'idle', state: 'IDLE' },
      ],
      tasks: {
        total: 2,
        by_status: { IN_PROGRESS: 1, READY: 1 },
        in_progress: [{ id: t1, title: 'Run', project_id: 'alpha', assigned_agent: 'agent-one' }],
        ready_to_work: [
          { id: expect.any(String), title: 'Wait', project_id: 'alpha', waiting_code: 'no_daemon', waiting_reason: NO_DAEMON },
        ],
      },
      orchestrator_paused: false,
      repairs: 0,
      not_starting: [{ project_id: 'alpha', ready: 1, code: 'no_daemon', reason: NO_DAEMON }],
      agent_sandbox: { available: true, missing: [], tasks_may_run: true, unix_sockets_refused: true },
      forges: { github: 'unknown', gitlab: 'unknown' },
    });
  });

  it('links channels by id and by name, and looks projects up by channel', async () => {
    expect(await rt.exec('set_project_channel', { project_id: 'alpha', channel_id: 'C1' })).toEqual({
      project_id: 'alpha',
      channel_id: 'C1',
      status: 'linked',
    });
    expect(await rt.exec('get_project_channels', { project_id: 'alpha' })).toEqual({ project_id: 'alpha', channel_id: 'C1' });
    expect(await rt.exec('get_project_for_channel', { channel_id: 'C1' })).toEqual({
      channel_id: 'C1',
      project_id: 'alpha',
      project_name: 'alpha',
    });
    expect(await rt.exec('get_project_for_channel', { channel_id: 42 })).toEqual({
      channel_id: '42',
      project_id: null,
      project_name: null,
    });
    expect((await rt.exec('list_projects')).projects).toEqual([expect.objectContaining({ chat_channel_id: 'C1' })]);

    const channels = [{ id: 'C9', name: 'aq-alpha' }];
    expect(await rt.exec('set_control_interface', { project_name: 'alpha', channel_name: '#aq-alpha', guild_channels: channels })).toEqual({
      project_id: 'alpha',
      channel_id: 'C9',
      status: 'linked',
    });
    expect(await rt.exec('set_control_interface', { project_id: 'alpha', channel_name: 'x', _resolved_channel_id: 'C7' })).toMatchObject({
      channel_id: 'C7',
    });
    expect(await rt.exec('set_control_interface', { project_id: 'alpha', channel_name: '#nope', guild_channels: channels })).toEqual({
      error: "Channel '#nope' not found.",
    });
    expect(await rt.exec('set_control_interface', { project_id: 'alpha', channel_name: 'x' })).toEqual({
      error: expect.stringContaining('no channel list'),
    });
    expect(await rt.exec('set_control_interface', { channel_name: 'x' })).toEqual({ error: "Missing required field 'project_id'." });
    expect(await rt.exec('set_control_interface', { project_id: 'ghost', channel_name: 'x', _resolved_channel_id: 'C1' })).toEqual({
      error: "Project 'ghost' not found.",
    });
    expect(await rt.exec('set_project_channel', { project_id: 'ghost', channel_id: 'C1' })).toEqual({
      error: "Project 'ghost' not found.",
    });
    expect(await rt.exec('get_project_channels', { project_id: 'ghost' })).toEqual({ error: "Project 'ghost' not found." });
  });

  it('returns the channel on delete_project and cascades every record', async () => {
    await rt.exec('set_project_channel', { project_id: 'alpha', channel_id: 'C1' });
    const t = (await rt.exec('create_task', { project_id: 'alpha', title: 'x', description: 'y' })).created as string;
    const deleted: string[] = [];
    rt.handler.onProjectDeleted = (id) => {
      deleted.push(id);
    };
    await rt.db.tokenUsage.record({ projectId: 'alpha', taskId: t, source: 'agent', inputTokens: 1, outputTokens: 1 });
    expect(await rt.exec('delete_project', { project_id: 'alpha', archive_channels: true })).toEqual({
      deleted: 'alpha',
      name: 'alpha',
      channel_ids: { channel: 'C1' },
      archive_channels: true,
    });
    expect(deleted).toEqual(['alpha']);
    const conn = rt.db.em().getConnection();
    expect(await conn.execute('select count(*) as n from tasks')).toEqual([{ n: 0 }]);
    expect(await conn.execute('select count(*) as n from token_usage')).toEqual([{ n: 0 }]);
    await rt.exec('create_project', { name: 'beta' });
    expect(await rt.exec('delete_project', { project_id: 'beta' })).toEqual({ deleted: 'beta', name: 'beta' });
  });

  it('refuses to delete a project with running tasks', async () => {
    const t = (await rt.exec('create_task', { project_id: 'alpha', title: 'x', description: 'y' })).created as string;
    await putTask(rt.db, t, 'IN_PROGRESS');
    expect(await rt.exec('delete_project', { project_id: 'alpha' })).toEqual({ error: expect.stringContaining('IN_PROGRESS') });
    expect(await rt.exec('delete_project', { project_id: 'ghost' })).toEqual({ error: "Project 'ghost' not found." });
  });

  it('creates and lists agents, validating the repo and duplicates', async () => {
    expect(await rt.exec('create_agent', { name: 'Builder Bot' })).toEqual({ created: 'builder-bot', name: 'Builder Bot' });
    expect(await rt.exec('list_agents')).toEqual({
      agents: [{ id: 'builder-bot', name: 'Builder Bot', type: 'claude', backend: 'claude-code', state: 'IDLE', current_task: null }],
      total: 1,
      next_offset: null,
    });
    expect(await rt.exec('create_agent', { name: 'builder bot' })).toEqual({ error: expect.stringContaining('already exists') });
    expect(await rt.exec('create_agent', { name: 'x', repo_id: 'nope' })).toEqual({ error: "Repo 'nope' not found." });
    expect(await rt.exec('create_agent', { name: 'x', agent_type: 'gpt' })).toEqual({
      error: expect.stringMatching(/^Field 'agent_type' must be one of claude/),
    });
  });

  it('guards admin commands for Slack users outside AQ_ADMINS', async () => {
    const guarded = await (await import('../../support/runtime')).makeTestRuntime({ AQ_ADMINS: 'U1' });
    try {
      await guarded.exec('create_project', { name: 'p' });
      const asStranger = await guarded.handler.execute('delete_project', { project_id: 'p' }, { source: 'slack', userId: 'U2' });
      expect(asStranger).toEqual({ error: expect.stringContaining('Only workspace admins') });
      expect(await guarded.handler.execute('list_projects', {}, { source: 'slack', userId: 'U2' })).toHaveProperty('projects');
      expect(await guarded.handler.execute('delete_project', { project_id: 'p' }, { source: 'slack', userId: 'U1' })).toMatchObject({
        deleted: 'p',
      });
    } finally {
      await guarded.cleanup();
    }
  });

  it('caps the ready list at the 20 most urgent and takes the total from the counts', async () => {
    for (let i = 0; i < 25; i++) {
      await rt.db.tasks.create({ projectId: 'alpha', title: `t${i}`, description: 'd', priority: 100 - i });
    }
    const { tasks } = (await rt.exec('get_status')) as {
      tasks: { total: number; by_status: Record<string, number>; ready_to_work: Array<{ title: string }> };
    };
    expect(tasks.total).toBe(25);
    expect(tasks.by_status).toEqual({ READY: 25 });
    expect(tasks.ready_to_work).toHaveLength(20);
    expect(tasks.ready_to_work[0]).toEqual({
      id: expect.any(String),
      title: 't24',
      project_id: 'alpha',
      waiting_code: 'no_daemon',
      waiting_reason: NO_DAEMON,
    });
    expect(tasks.ready_to_work[19].title).toBe('t5');
    expect((await rt.exec('get_status')).orchestrator_paused).toBe(false);
  });

  it('reads the stored flags, answers and counts of get_status together, each where it belongs', async () => {
    await rt.db.state.set(FORGE_READINESS_KEY, { github: 'ready', gitlab: 'missing', checked_at: '2026-11-26T07:00:00.000Z' });
    const refused = { mode: 'fallback', method: 'chat.startStream', slack_error: 'not_allowed', since: '2026-11-26T07:00:00.000Z' };
    await rt.db.state.set(slackFeatureKey('streaming'), refused);
    await rt.db.reconciliation.countRepairs(3);
    await rt.exec('orchestrator_control', { action: 'pause' });
    await rt.exec('create_project', { name: 'beta' });
    const slow = (await rt.exec('create_task', { project_id: 'beta', title: 'Slow', description: 'd', priority: 9 })).created as string;
    const fast = (await rt.exec('create_task', { project_id: 'alpha', title: 'Fast', description: 'd', priority: 1 })).created as string;
    await rt.exec('create_task', { project_id: 'beta', title: 'Queued', description: 'd', priority: 5 });
    await putTask(rt.db, slow, 'IN_PROGRESS');
    await putTask(rt.db, fast, 'IN_PROGRESS');
    const status = await rt.exec('get_status');
    expect(status).toMatchObject({
      projects: 2,
      orchestrator_paused: true,
      repairs: 3,
      forges: { github: 'ready', gitlab: 'missing', checked_at: '2026-11-26T07:00:00.000Z' },
      slack_features: { streaming: refused },
      tasks: {
        total: 3,
        by_status: { IN_PROGRESS: 2, READY: 1 },
        in_progress: [
          { id: fast, title: 'Fast', project_id: 'alpha', assigned_agent: null },
          { id: slow, title: 'Slow', project_id: 'beta', assigned_agent: null },
        ],
        ready_to_work: [{ id: expect.any(String), title: 'Queued', project_id: 'beta', waiting_code: 'no_daemon' }],
      },
      not_starting: [{ project_id: 'beta', ready: 1, code: 'no_daemon' }],
    });
  });

  it("tells a live daemon's lease from a dead one's, read with the counts, in as many statements whatever the queue", async () => {
    await rt.exec('create_task', { project_id: 'alpha', title: 'Waiting', description: 'd' });
    const counter = countStatements(rt.db);
    const readyCode = async () => {
      const before = counter.count;
      const status = (await rt.exec('get_status')) as { tasks: { ready_to_work: Array<{ waiting_code?: string }> } };
      return { code: status.tasks.ready_to_work[0].waiting_code, statements: counter.count - before };
    };

    // Another process holds the lease, with a fresh heartbeat: a daemon runs, only no agent is free.
    expect(await rt.db.scheduling.acquireLease('daemon-elsewhere', new Date(), 30_000)).toBe(true);
    const live = await readyCode();
    expect(live.code).toBe('no_agent');
    // The counts, flags and lease (one union), the agents, the two task pages (one union) and the
    // workers with their claims (one union); then the waiting reasons read their small tables.
    const { statements: base } = live;
    expect(base).toBeLessThanOrEqual(11);
    // Its heartbeat a minute old: that daemon is gone, and nothing schedules.
    expect(await rt.db.scheduling.acquireLease('daemon-elsewhere', new Date(Date.now() - 60_000), 30_000)).toBe(true);
    expect((await readyCode()).code).toBe('no_daemon');
    // A worker registered, and many more tasks: not one statement more.
    await rt.db.workers.register({ name: 'w1', host: 'h', capacity: 1, labels: [], leaseMs: 10_000 }, Date.now());
    for (let i = 0; i < 30; i++) await rt.exec('create_task', { project_id: 'alpha', title: `t${i}`, description: 'd' });
    expect(await rt.db.scheduling.acquireLease('daemon-elsewhere', new Date(), 30_000)).toBe(true);
    expect(await readyCode()).toEqual({ code: 'no_agent', statements: base });
    counter.stop();
  });

  it('sums a status count spread over several rows (PostgreSQL keeps it in stripes per connection)', async () => {
    await rt.exec('orchestrator_control', { action: 'pause' });
    await rt.exec('create_project', { name: 'beta' });
    for (let i = 0; i < 4; i++) await rt.exec('create_task', { project_id: 'beta', title: `b${i}`, description: 'd' });
    if (onPostgres()) {
      // Three of the four READY tasks moved to another connection's stripe: the sum stays 4.
      const conn = rt.db.em().getConnection();
      await conn.execute("update task_status_counts set n = n - 3 where project_id = 'beta' and status = 'READY'");
      await conn.execute(
        `insert into task_status_counts (project_id, status, stripe, n) values ('beta', 'READY', 15, 3)
           on conflict (project_id, status, stripe) do update set n = task_status_counts.n + 3`,
      );
    }
    expect(await rt.exec('get_status')).toMatchObject({
      tasks: { total: 4, by_status: { READY: 4 } },
      not_starting: [{ project_id: 'beta', ready: 4, code: 'no_daemon' }],
    });
  });

  it('names the missing field for channel commands', async () => {
    expect(await rt.exec('set_control_interface', { project_id: 'alpha' })).toEqual({ error: "Missing required field 'channel_name'." });
    expect(await rt.exec('get_project_for_channel', {})).toEqual({ error: "Missing required field 'channel_id'." });
    expect(await rt.exec('set_project_channel', { project_id: 'alpha' })).toEqual({ error: "Missing required field 'channel_id'." });
  });

  it('shows what an agent works on in list_agents', async () => {
    await rt.exec('create_agent', { name: 'w', agent_type: 'claude' });
    const t = (await rt.exec('create_task', { project_id: 'alpha', title: 'Run', description: 'd' })).created as string;
    await rt.db.em().getConnection().execute("update agents set state = 'BUSY', current_task = ? where id = 'w'", [t]);
    expect(await rt.exec('list_agents')).toEqual({
      agents: [{ id: 'w', name: 'w', type: 'claude', backend: 'claude-code', state: 'BUSY', current_task: t }],
      total: 1,
      next_offset: null,
    });
  });
});
