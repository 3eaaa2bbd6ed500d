import path from 'node:path';
import type { EventRecord } from '../../../src/db/repositories/events';
import { PLAN_PARSER_SYSTEM_PROMPT } from '../../../src/plan/llm-parser';
import { FakeAnthropic } from '../../support/fake-anthropic';
import { cloneWorkspace, createOriginRepo } from '../../support/git-fixtures';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { ScriptedAdapter, waitFor, writeIn } from '../orchestrator/harness';

const MODEL = 'fake-wiring-model';

const PLAN = `# Build the widget

## Phase 1: Add the model

Create src/model.ts with the Widget type.

## Phase 2: Add the view

Render the widget in src/view.ts.
`;

/**
 * The real wiring of a daemon process: createRuntime from the environment (chat model, LLM plan
 * parser) and startDaemon, against the loopback Messages API. Only the coding agent is scripted.
 */
describe('createRuntime wires every part once', () => {
  let fake: FakeAnthropic;
  let rt: TestRuntime;
  let adapter: ScriptedAdapter;
  const events: EventRecord[] = [];
  const planTasks = new Map<string, string>();

  beforeAll(async () => {
    fake = await FakeAnthropic.start();
    rt = await makeTestRuntime({
      ANTHROPIC_API_KEY: 'sk-fake',
      ANTHROPIC_BASE_URL: fake.url,
      AQ_CHAT_MODEL: MODEL,
      AQ_USE_LLM_PARSER: 'true',
    });
    rt.events.subscribe((e) => {
      events.push(e);
    });
    await rt.exec('create_project', { name: 'proj' });
    const origin = await createOriginRepo(rt.home);
    const workspace = await cloneWorkspace(origin, path.join(rt.home, 'ws0'));
    await rt.db.workspaces.create({ id: 'ws0', projectId: 'proj', name: 'ws0', path: workspace, sourceType: 'clone', repoId: null });
    await rt.db.agents.create({ id: 'agent-0', name: 'Agent 0', type: 'claude' });
    adapter = new ScriptedAdapter();
    adapter.fallback = async (req) => {
      const plan = planTasks.get(req.taskId);
      if (plan) await writeIn(req, '.agent/plan.md', plan);
      return {};
    };
  });
  afterAll(async () => {
    await rt.cleanup();
    await fake.close();
  });

  /** Queues a task whose agent leaves a plan, and resolves with the plan's event. */
  async function runPlanTask(title: string, plan = PLAN): Promise<EventRecord> {
    const created = (await rt.exec('create_task', { project_id: 'proj', title, description: title, requires_approval: false })) as {
      created: string;
    };
    planTasks.set(created.created, plan);
    rt.daemon()?.kick();
    return waitFor(
      async () => events.find((e) => e.type === 'plan_tasks_created' && e.taskId === created.created),
      20_000,
      `the plan of ${title}`,
    );
  }

  it('before the daemon starts: the chat model and chat agent are wired, hooks are not reachable', () => {
    expect(rt.chatProvider?.model).toBe(MODEL);
    expect(rt.chat).not.toBeNull();
    expect(rt.hooks).toBeDefined();
    expect(rt.daemon()).toBeNull();
    expect(rt.orchestrator.hookEngine).toBeNull();
  });

  it('startDaemon makes the orchestrator and the hook engine reachable from every handler', async () => {
    await rt.startDaemon({ adapters: { claude: adapter }, intervalMs: 100, progressIntervalMs: 20 });
    expect(rt.daemon()?.isLeader).toBe(true);
    expect(rt.orchestrator.hookEngine).toBe(rt.hooks);
    expect(await rt.orchestrator.daemonRunning()).toBe(true);
    expect(await rt.createHandler().execute('orchestrator_control', { action: 'status' }, { source: 'system' })).toEqual({
      status: 'running',
      running_tasks: 0,
    });
  });

  it('with use_llm_parser on, a plan file an agent leaves is parsed by the model', async () => {
    fake.enqueue({
      toolUses: [
        {
          name: 'extract_plan_steps',
          input: {
            steps: [
              { title: 'Model step from the model', description: 'Create the Widget type.' },
              { title: 'View step from the model', description: 'Render the widget.' },
            ],
          },
        },
      ],
    });
    const before = fake.requests.length;
    const created = await runPlanTask('Plan through the model');
    const parseRequest = fake.requests.slice(before).find((r) => JSON.stringify(r.body.tools ?? []).includes('extract_plan_steps'));
    expect(parseRequest?.body).toMatchObject({ model: MODEL, messages: [{ role: 'user', content: PLAN }] });
    expect(JSON.stringify(parseRequest?.body.system)).toContain(PLAN_PARSER_SYSTEM_PROMPT.split('\n')[0]);
    expect((created.payload.tasks as Array<{ title: string }>).map((t) => t.title)).toEqual([
      'Model step from the model',
      'View step from the model',
    ]);
  });

  it('falls back to the rule parser when the model call fails', async () => {
    fake.enqueue({ error: { status: 400, type: 'invalid_request_error', message: 'fake: refused' } });
    const before = fake.requests.length;
    const created = await runPlanTask('Plan without the model');
    expect(fake.requests.length).toBeGreaterThan(before);
    expect((created.payload.tasks as Array<{ title: string }>).map((t) => t.title)).toEqual(['Add the model', 'Add the view']);
  });

  it('gives a plan of more than 200,000 characters to the rule parser, without asking the model', async () => {
    const before = fake.requests.length;
    const long = `${PLAN}\n## Appendix\n\n${'Background the agent gathered. '.repeat(7000)}\n`;
    const created = await runPlanTask('Plan too long for the model', long);
    expect(fake.requests.slice(before).filter((r) => JSON.stringify(r.body.tools ?? []).includes('extract_plan_steps'))).toEqual([]);
    expect((created.payload.tasks as Array<{ title: string }>).map((t) => t.title)).toEqual(['Add the model', 'Add the view']);
  });

  it('the hook engine the daemon runs uses the same chat model', async () => {
    await rt.exec('create_hook', {
      project_id: 'proj',
      name: 'Check',
      trigger: { type: 'periodic', interval_seconds: 86_400 },
      prompt_template: 'Look around.',
    });
    fake.enqueue({ text: 'All fine.', usage: { input_tokens: 4, output_tokens: 3 } });
    expect(await rt.exec('fire_hook', { hook_id: 'check' })).toEqual({ fired: 'check', status: 'running' });
    await rt.hooks.idle();
    const { runs } = (await rt.exec('list_hook_runs', { hook_id: 'check' })) as { runs: Array<Record<string, unknown>> };
    expect(runs[0]).toMatchObject({ trigger_reason: 'manual', status: 'completed', tokens_used: 7 });
  });

  it('the chat agent answers through the same chat model', async () => {
    fake.enqueue({ text: 'Hello from the model.' });
    const reply = await rt.chat!.reply({ conversationId: 'C1:1', text: 'hi', actor: { source: 'chat', userId: 'U1' } });
    expect(reply.text).toBe('Hello from the model.');
    expect(fake.lastRequest().body.model).toBe(MODEL);
  });

  it('stopDaemon leaves the DB-only controls and makes hooks unreachable again', async () => {
    await rt.stopDaemon();
    expect(rt.daemon()).toBeNull();
    expect(rt.orchestrator.hookEngine).toBeNull();
    expect(await rt.orchestrator.daemonRunning()).toBe(false);
    expect(await rt.exec('fire_hook', { hook_id: 'check' })).toEqual({ error: expect.stringContaining('not enabled in this process') });
  });
});
