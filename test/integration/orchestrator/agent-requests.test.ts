import type { AgentRunRequest } from '../../../src/agents/adapter';
import type { PermissionAsk } from '../../../src/agents/agent-requests';
import { DEFAULT_TOOL_POLICY } from '../../../src/agents/agent-requests';
import { ManualClock } from '../../../src/util/clock';
import { putTask } from '../../support/task-fixtures';
import { makeHarness, untilAborted, waitFor, type Harness } from './harness';

const QUESTION = {
  question: 'Which database should we use?',
  header: 'Database',
  options: [{ label: 'Postgres', description: 'the fleet' }, { label: 'SQLite' }],
  multiSelect: false,
};

const MAKE: PermissionAsk = {
  tool: 'Bash',
  input: { command: 'make build' },
  description: 'Build it',
  reason: 'This command requires approval',
  rule: 'Bash(make build *)',
};

/**
 * Questions and permission requests of a run, through the database: the task waits in
 * WAITING_INPUT, any process may answer, timeouts and stops end the wait. The agent is scripted
 * here (it calls what Claude Code's permission callback calls); the e2e suite runs the real CLI.
 */
describe('agents asking people', () => {
  let h: Harness;
  afterEach(() => h?.cleanup());

  const pending = async (taskId: string) => waitFor(async () => (await h.rt.db.agentRequests.list({ taskId, status: 'pending' }))[0]);

  it('holds the run in WAITING_INPUT until a button answers the question, then goes on with the answer', async () => {
    h = await makeHarness({ env: { AQ_ASK_PEOPLE: 'true' } });
    let got: unknown = null;
    h.adapter.fallback = async (req) => {
      expect(req.agentRequests?.canAsk).toBe(true);
      got = await req.agentRequests!.askQuestions([QUESTION], req.signal);
      return { summary: 'chose' };
    };
    await h.start();
    const id = await h.task('Pick a database');
    const request = await pending(id);
    const created = await waitFor(async () => h.eventsOf('agent_request_created', id)[0]);
    expect(await h.status(id)).toBe('WAITING_INPUT');
    expect(created.payload).toMatchObject({
      request_id: request.id,
      kind: 'question',
      title: 'Pick a database',
      questions: [QUESTION],
      timeout_seconds: 3600,
      on_timeout: 'skip',
    });

    const answered = await h.rt.exec('answer_agent_request', {
      request_id: request.id,
      decision: 'answer',
      question_index: 0,
      option_index: 1,
    });
    expect(answered).toMatchObject({ request_id: request.id, task_id: id, status: 'answered', answers: { [QUESTION.question]: 'SQLite' } });
    await h.waitStatus(id, 'COMPLETED');
    expect(got).toEqual({ answered: true, answers: { [QUESTION.question]: 'SQLite' }, by: 'system' });
    expect(await h.rt.exec('answer_agent_request', { request_id: request.id, decision: 'answer', answer: 'again' })).toEqual({
      error: `Agent request ${request.id} was already answered.`,
    });
  });

  it('keeps the answer to one question of several until all are answered', async () => {
    h = await makeHarness({ env: { AQ_ASK_PEOPLE: 'true' } });
    const second = { question: 'Which port?', options: [{ label: '80' }, { label: '8080' }] };
    let got: unknown = null;
    h.adapter.fallback = async (req) => {
      got = await req.agentRequests!.askQuestions([QUESTION, second], req.signal);
      return {};
    };
    await h.start();
    const id = await h.task('Two questions');
    const request = await pending(id);
    expect(
      await h.rt.exec('answer_agent_request', { request_id: request.id, decision: 'answer', question_index: 1, option_index: 1 }),
    ).toMatchObject({
      status: 'pending',
      answers: { 'Which port?': '8080' },
    });
    expect(
      await h.rt.exec('answer_agent_request', { request_id: request.id, decision: 'answer', question_index: 2, option_index: 0 }),
    ).toEqual({
      error: `Agent request ${request.id} has no question 3.`,
    });
    expect(await h.status(id)).toBe('WAITING_INPUT');
    expect(await h.rt.exec('message_task', { task_id: id, text: 'Postgres' })).toMatchObject({ delivery: 'answer', status: 'IN_PROGRESS' });
    await h.waitStatus(id, 'COMPLETED');
    expect(got).toMatchObject({ answered: true, answers: { [QUESTION.question]: 'Postgres', 'Which port?': '8080' } });
  });

  it('takes several options of a multi-select question at once, and one only where one is asked', async () => {
    h = await makeHarness({ env: { AQ_ASK_PEOPLE: 'true' } });
    const checks = { question: 'Which checks?', options: [{ label: 'Lint' }, { label: 'Tests' }, { label: 'Types' }], multiSelect: true };
    let got: unknown = null;
    h.adapter.fallback = async (req) => {
      got = await req.agentRequests!.askQuestions([QUESTION, checks], req.signal);
      return {};
    };
    await h.start();
    const id = await h.task('Several checks');
    const request = await pending(id);
    const answer = (args: Record<string, unknown>) =>
      h.rt.exec('answer_agent_request', { request_id: request.id, decision: 'answer', ...args });
    expect(await answer({ question_index: 0, option_indexes: [0, 1] })).toEqual({
      error: `Agent request ${request.id}'s question takes one option; choose one (option_index).`,
    });
    expect(await answer({ question_index: 1, option_indexes: [0, 5] })).toEqual({
      error: `Agent request ${request.id}'s question has no option 6; it has 3.`,
    });
    expect(await answer({ question_index: 1, option_indexes: [2, 0, 2] })).toMatchObject({
      status: 'pending',
      answers: { 'Which checks?': 'Lint, Types' },
    });
    expect(await answer({ question_index: 0, option_indexes: [1] })).toMatchObject({ status: 'answered' });
    await h.waitStatus(id, 'COMPLETED');
    expect(got).toMatchObject({ answered: true, answers: { [QUESTION.question]: 'SQLite', 'Which checks?': 'Lint, Types' } });
  });

  it('takes a message to the task as the answer to its open question (a thread reply)', async () => {
    h = await makeHarness({ env: { AQ_ASK_PEOPLE: 'true' } });
    let got: unknown = null;
    h.adapter.fallback = async (req) => {
      got = await req.agentRequests!.askQuestions([QUESTION], req.signal);
      return {};
    };
    await h.start();
    const id = await h.task('Ask me');
    const request = await pending(id);
    expect(await h.rt.exec('message_task', { task_id: id, text: 'MySQL, sadly', author: 'Ada' })).toEqual({
      task_id: id,
      title: 'Ask me',
      delivery: 'answer',
      request_id: request.id,
      status: 'IN_PROGRESS',
    });
    await h.waitStatus(id, 'COMPLETED');
    expect(got).toMatchObject({ answered: true, answers: { [QUESTION.question]: 'MySQL, sadly' }, by: 'Ada' });
    expect(await h.rt.db.taskMessages.list(id)).toEqual([]);
  });

  it('"always allow" adds the rule to the project policy, which the next run gets without asking', async () => {
    h = await makeHarness({ env: { AQ_ASK_PEOPLE: 'true' } });
    const rules: string[][] = [];
    const answers: unknown[] = [];
    h.adapter.fallback = async (req) => {
      rules.push(await req.agentRequests!.allowRules());
      if (!rules.at(-1)!.includes(MAKE.rule)) answers.push(await req.agentRequests!.askPermission(MAKE, req.signal));
      return {};
    };
    await h.start();
    expect(await h.rt.exec('get_tool_policy', { project_id: 'proj' })).toMatchObject({ rules: [...DEFAULT_TOOL_POLICY], is_default: true });
    const first = await h.task('Build once');
    const request = await pending(first);
    expect(request.payload).toMatchObject({ tool: 'Bash', detail: 'make build', rule: 'Bash(make build *)', reason: MAKE.reason });
    expect(await h.rt.exec('answer_agent_request', { request_id: request.id, decision: 'always' })).toMatchObject({
      status: 'answered',
      rule_added: 'Bash(make build *)',
    });
    await h.waitStatus(first, 'COMPLETED');
    expect(answers).toEqual([{ decision: 'always', by: 'system' }]);
    expect(await h.rt.exec('get_tool_policy', { project_id: 'proj' })).toMatchObject({
      rules: [...DEFAULT_TOOL_POLICY, 'Bash(make build *)'],
      is_default: false,
    });

    const second = await h.task('Build again');
    await h.waitStatus(second, 'COMPLETED');
    expect(rules[1]).toContain('Bash(make build *)');
    expect(answers).toHaveLength(1);
    expect(await h.rt.db.agentRequests.list({ taskId: second })).toEqual([]);
  });

  it('"always allow" widens the policy, so only admins may choose it; a steerer may allow once', async () => {
    h = await makeHarness({ env: { AQ_ASK_PEOPLE: 'true', AQ_ADMINS: 'UADMIN' } });
    const answers: unknown[] = [];
    h.adapter.fallback = async (req) => {
      answers.push(await req.agentRequests!.askPermission(MAKE, req.signal));
      return {};
    };
    await h.start();
    await h.rt.exec('set_project_steerers', { project_id: 'proj', user_ids: ['USTEER'] });
    const id = await h.task('Build once');
    const request = await pending(id);
    const steerer = { source: 'slack' as const, userId: 'USTEER' };
    expect(await h.rt.handler.execute('answer_agent_request', { request_id: request.id, decision: 'always' }, steerer)).toEqual({
      error: "Only admins (AQ_ADMINS) may add to a project's tool policy; choose Allow once, or ask an admin.",
    });
    expect(await h.rt.handler.execute('answer_agent_request', { request_id: request.id, decision: 'allow' }, steerer)).toMatchObject({
      status: 'answered',
    });
    await h.waitStatus(id, 'COMPLETED');
    expect(answers).toEqual([{ decision: 'allow', by: 'USTEER' }]);
    expect(await h.rt.exec('get_tool_policy', { project_id: 'proj' })).toMatchObject({ is_default: true });
  });

  it('tells the agent who denied a call and why', async () => {
    h = await makeHarness({ env: { AQ_ASK_PEOPLE: 'true' } });
    let got: unknown = null;
    h.adapter.fallback = async (req) => {
      got = await req.agentRequests!.askPermission(MAKE, req.signal);
      return {};
    };
    await h.start();
    const id = await h.task('Denied');
    const request = await pending(id);
    expect(await h.rt.exec('answer_agent_request', { request_id: request.id, decision: 'answer', answer: 'x' })).toEqual({
      error: `Agent request ${request.id} asks for a permission: allow, always (allow) or deny it.`,
    });
    await h.rt.exec('answer_agent_request', { request_id: request.id, decision: 'deny', reason: 'use npm run build instead' });
    await h.waitStatus(id, 'COMPLETED');
    expect(got).toEqual({ decision: 'deny', message: 'A person denied this tool call: use npm run build instead', by: 'system' });
  });

  it('lets the agent go on without an answer after the timeout, and says so', async () => {
    h = await makeHarness({ env: { AQ_ASK_PEOPLE: 'true' } });
    const clock = new ManualClock();
    let got: unknown = null;
    h.adapter.fallback = async (req) => {
      got = await req.agentRequests!.askQuestions([QUESTION], req.signal);
      return {};
    };
    await h.start({ clock });
    const id = await h.task('Nobody home');
    const request = await pending(id);
    // The request is stored a moment before the task moves to WAITING_INPUT.
    await h.waitStatus(id, 'WAITING_INPUT');
    expect(request.expiresAt?.getTime()).toBe(clock.now().getTime() + 3_600_000);
    clock.advance(3_599_000);
    expect(await h.status(id)).toBe('WAITING_INPUT');
    clock.advance(1000);
    await h.waitStatus(id, 'COMPLETED');
    expect(got).toEqual({
      answered: false,
      message: 'Nobody answered within 60 minutes. Go on with your best judgement, and say in your summary what you assumed.',
    });
    expect(h.eventsOf('agent_request_timed_out', id)[0].payload).toMatchObject({ kind: 'question', action: 'skip', timeout_seconds: 3600 });
    expect((await h.rt.db.agentRequests.list({ taskId: id }))[0].status).toBe('timed_out');
  });

  it('blocks the task when the project says an unanswered request blocks it', async () => {
    h = await makeHarness({ env: { AQ_ASK_PEOPLE: 'true', AQ_ASK_TIMEOUT_SECONDS: '90', AQ_ASK_TIMEOUT_ACTION: 'block' } });
    const clock = new ManualClock();
    let got: unknown = null;
    h.adapter.fallback = async (req) => {
      got = await req.agentRequests!.askPermission(MAKE, req.signal);
      await untilAborted(req);
      return { status: 'aborted', summary: '' };
    };
    await h.start({ clock });
    const id = await h.task('Blocked on silence');
    await pending(id);
    clock.advance(90_000);
    await h.waitStatus(id, 'BLOCKED');
    await waitFor(async () => h.eventsOf('task_blocked', id)[0]);
    expect(h.eventsOf('task_blocked', id)[0].payload.reason).toBe("Nobody answered the agent's permission request within 90 seconds.");
    await waitFor(async () => got);
    expect(got).toMatchObject({ decision: 'deny', stop: true });
    await waitFor(async () => h.rt.daemon()!.runningTaskIds.length === 0, 60_000, 'the run to end');
    expect(await h.rt.db.tasks.get(id)).toMatchObject({ status: 'BLOCKED', assignedAgent: null });
  });

  it('ends the wait when the task is stopped', async () => {
    h = await makeHarness({ env: { AQ_ASK_PEOPLE: 'true' } });
    let got: unknown = null;
    const seen: AgentRunRequest[] = [];
    h.adapter.fallback = async (req) => {
      seen.push(req);
      got = await req.agentRequests!.askQuestions([QUESTION], req.signal);
      return { status: 'aborted', summary: '' };
    };
    await h.start();
    const id = await h.task('Stop me');
    const request = await pending(id);
    expect(await h.rt.exec('stop_task', { task_id: id })).toEqual({ stopped: id });
    await waitFor(async () => got);
    expect(got).toMatchObject({ answered: false, stop: true });
    expect(await h.status(id)).toBe('BLOCKED');
    expect((await h.rt.db.agentRequests.get(request.id))?.status).toBe('cancelled');
    expect(await h.rt.exec('answer_agent_request', { request_id: request.id, decision: 'answer', answer: 'late' })).toEqual({
      error: `Agent request ${request.id} ended with its run.`,
    });
  });

  it('puts a task a dead daemon left waiting back in the queue, and closes its open request', async () => {
    h = await makeHarness({ env: { AQ_ASK_PEOPLE: 'true' } });
    const id = await h.task('Left waiting');
    await putTask(h.rt.db, id, 'WAITING_INPUT', { assignedAgent: 'agent-0' });
    const request = await h.rt.db.agentRequests.add({
      taskId: id,
      projectId: 'proj',
      kind: 'question',
      payload: { questions: [QUESTION] },
      expiresAt: null,
    });
    await h.rt.exec('orchestrator_control', { action: 'pause' });
    await h.start();
    await waitFor(async () => h.eventsOf('task_retrying', id)[0]);
    expect(await h.status(id)).toBe('READY');
    expect((await h.rt.db.agentRequests.get(request.id))?.status).toBe('cancelled');
  });

  it('asks nobody when people cannot be asked: no questions offered, the policy still given', async () => {
    h = await makeHarness({ env: { AQ_ASK_PEOPLE: 'false' } });
    let seen: { canAsk?: boolean; rules?: string[] } = {};
    h.adapter.fallback = async (req) => {
      seen = { canAsk: req.agentRequests?.canAsk, rules: await req.agentRequests?.allowRules() };
      return {};
    };
    await h.start();
    const id = await h.task('Alone');
    await h.waitStatus(id, 'COMPLETED');
    expect(seen).toEqual({ canAsk: false, rules: [...DEFAULT_TOOL_POLICY] });
  });
});

describe('tool policy commands', () => {
  let h: Harness;
  afterEach(() => h?.cleanup());

  it('edits, validates and resets a project policy', async () => {
    h = await makeHarness();
    expect(await h.rt.exec('set_tool_policy', { project_id: 'proj', rules: ['Read', 'Bash(npm test:*)'] })).toMatchObject({
      rules: ['Read', 'Bash(npm test:*)'],
      is_default: false,
      asks_people: false,
    });
    expect(await h.rt.exec('set_tool_policy', { project_id: 'proj', add: 'WebFetch(domain:example.com)', remove: ['Read'] })).toMatchObject(
      {
        rules: ['Bash(npm test:*)', 'WebFetch(domain:example.com)'],
      },
    );
    const bad = await h.rt.exec('set_tool_policy', { project_id: 'proj', add: ['rm -rf /'] });
    expect(bad.error).toContain("Field 'add': 'rm -rf /' is not a tool rule");
    expect(await h.rt.exec('set_tool_policy', { project_id: 'proj' })).toEqual({
      error: 'Say what to change: rules (the whole policy), add, remove, or reset=true.',
    });
    expect(await h.rt.exec('set_tool_policy', { project_id: 'nope', add: ['Read'] })).toEqual({ error: "Project 'nope' not found." });
    expect(await h.rt.exec('set_tool_policy', { project_id: 'proj', reset: true })).toMatchObject({
      rules: [...DEFAULT_TOOL_POLICY],
      is_default: true,
    });
    expect(await h.rt.exec('list_agent_requests', {})).toEqual({ requests: [], total: 0, next_offset: null });
  });
});
