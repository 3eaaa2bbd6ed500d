// @scratch-on-disk: the real Claude Code CLI runs shell commands in a sandbox with a /dev of its own, where a workspace in /dev/shm is not.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { ClaudeCodeAdapter } from '../../../src/agents/claude-code';
import { GitManager } from '../../../src/git/git-manager';
import { GitManagerTaskGit } from '../../../src/orchestrator/task-git';
import type { ApiCall, FakeSlack } from '../../support/fake-slack';
import { FakeSlack as Fake } from '../../support/fake-slack';
import { FakeAnthropic, type RecordedRequest, type ToolResultBlock } from '../../support/fake-anthropic';
import { cloneWorkspace, commitFile, createOriginRepo, gitOut } from '../../support/git-fixtures';
import { HOSTILE, showsLiterally } from '../../support/hostile';
import { blockActions, interactionBody, viewSubmission } from '../../support/slack-payloads';
import { startTestApp, type TestApp } from '../../support/slack-app';
import { waitFor } from '../../integration/orchestrator/harness';

jest.setTimeout(120_000);

/** A label that would ping the channel and format itself if it were not escaped. */
const HOSTILE_LABEL = '<!channel> *SQLite* & <b>';

function textOf(block: ToolResultBlock): string {
  return typeof block.content === 'string' ? block.content : JSON.stringify(block.content);
}

/**
 * Questions and permission requests of the real Claude Code CLI (against the loopback Messages
 * API), posted by the real app in the task's thread on the fake Slack, answered by button
 * clicks, a modal and a thread reply, with the run going on from where it waited.
 */
describe('agents ask in the task thread (real Claude Code CLI, fake Slack)', () => {
  let app: TestApp;
  let slack: FakeSlack;
  let fake: FakeAnthropic;
  let workspace: string;
  let origin: string;

  const rt = () => app.started.runtime;
  const exec = (name: string, args: Record<string, unknown> = {}) => rt().handler.executeAny(name, args, { source: 'system' });
  const inThread = () => slack.callsTo('chat.postMessage').filter((c) => c.args.thread_ts);
  const posted = (prefix: string) =>
    slack.waitForCall('chat.postMessage', (c) => !!c.args.thread_ts && String(c.args.text).startsWith(prefix), 60_000);
  const toolResults = () => fake.requests.flatMap((r: RecordedRequest) => fake.toolResultsIn(r));

  async function setup(env: Record<string, string> = {}): Promise<void> {
    fake = await FakeAnthropic.start();
    app = await startTestApp({ AQ_AGENTS: '0', AQ_ASK_PEOPLE: 'true', ...env }, { daemon: false });
    slack = app.slack;
    origin = await createOriginRepo(app.home);
    workspace = await cloneWorkspace(origin, path.join(app.home, 'ws0'));
    await rt().db.projects.create({ id: 'proj', name: 'proj', workspace: path.join(app.home, 'project-dir'), maxConcurrentAgents: 1 });
    await rt().db.workspaces.create({ id: 'ws0', projectId: 'proj', name: 'ws0', path: workspace, sourceType: 'clone', repoId: null });
    await rt().db.agents.create({ id: 'agent-0', name: 'Agent 0', type: 'claude' });
    await exec('set_project_channel', { project_id: 'proj', channel_id: 'CP' });
    const home = path.join(app.home, 'claude-home');
    await mkdir(path.join(home, 'config'), { recursive: true });
    const claude = new ClaudeCodeAdapter({
      apiKey: 'sk-ant-fake',
      baseUrl: fake.url,
      maxRetries: 0,
      env: { HOME: home, CLAUDE_CONFIG_DIR: path.join(home, 'config') },
      tempRoot: path.join(home, 'tmp'),
    });
    await rt().startDaemon({
      adapters: { claude },
      git: new GitManagerTaskGit(new GitManager()),
      intervalMs: 500,
      progressIntervalMs: 50,
      log: () => undefined,
    });
  }

  afterEach(async () => {
    await app?.stop();
    await fake?.close();
  });

  async function task(title: string): Promise<string> {
    const t = await rt().db.tasks.create({ projectId: 'proj', title, description: `Do: ${title}` });
    rt().daemon()?.kick();
    return t.id;
  }

  const waitStatus = (id: string, status: string) =>
    waitFor(async () => (await rt().db.tasks.get(id))?.status === status, 60_000, `${id} to be ${status}`);

  /** Clicks a button of a message the app posted, as Slack sends it (the message's own blocks). */
  function click(
    message: ApiCall,
    actionId: string,
    value: string,
    responseId: string,
    row: { blockId?: string; stateValues?: Record<string, Record<string, Record<string, unknown>>> } = {},
  ) {
    return Fake.postToApp(
      app.url,
      interactionBody(
        blockActions({
          actionId,
          value,
          channelId: String(message.args.channel),
          messageTs: '1700000000.000200',
          blocks: message.args.blocks as never,
          responseUrl: slack.responseUrl(responseId),
          ...row,
        }),
      ),
      { signingSecret: app.signingSecret },
    );
  }

  const requestIdOf = async (taskId: string) => (await rt().db.agentRequests.list({ taskId }))[0].id;

  it('asks about a command outside the policy; Always allow lets the run go on and the next run does not ask', async () => {
    await setup();
    await commitFile(workspace, 'Makefile', 'build:\n\techo built > built.txt\n', 'Add a Makefile');
    await gitOut(workspace, 'push', 'origin', 'main');
    fake.enqueue({ toolUses: [{ name: 'Bash', input: { command: 'make build', description: 'Build it' } }] }, { text: 'Built.' });
    const first = await task('Build it');
    const ask = await posted('🔐 Permission needed');
    expect(await rt().db.tasks.get(first)).toMatchObject({ status: 'WAITING_INPUT' });
    expect(JSON.stringify(ask.args.blocks)).toContain('make build');
    expect(JSON.stringify(ask.args.blocks)).toContain('Bash(make build *)');
    await slack.waitForCall('chat.update', (c) => String(c.args.text).includes('waiting for input'), 10_000);

    const id = await requestIdOf(first);
    await click(ask, 'aq_request_always', String(id), 'always');
    await waitStatus(first, 'COMPLETED');
    const redrawn = await slack.waitForResponse((r) => r.id === 'always');
    expect(redrawn.body).toMatchObject({ replace_original: true });
    expect(JSON.stringify(redrawn.body)).toContain('Always allowed for this project by');
    expect(JSON.stringify(redrawn.body)).not.toContain('aq_request_allow');
    const made = toolResults()[0];
    expect(textOf(made)).toContain('echo built > built.txt');
    expect(made.is_error).toBeFalsy();
    expect(await gitOut(origin, 'show', 'main:built.txt')).toBe('built');
    expect((await exec('get_tool_policy', { project_id: 'proj' })).rules).toContain('Bash(make build *)');
    await waitFor(
      async () => inThread().some((c) => String(c.args.text).startsWith('Always allowed for this project')),
      10_000,
      'the answer in the thread',
    );

    fake.enqueue({ toolUses: [{ name: 'Bash', input: { command: 'make build', description: 'Build again' } }] }, { text: 'Built again.' });
    const second = await task('Build again');
    await waitStatus(second, 'COMPLETED');
    expect(await rt().db.agentRequests.list({ taskId: second })).toEqual([]);
    expect(toolResults()[1].is_error).toBeFalsy();
  });

  it('Deny with a reason from the modal reaches the model as the tool result', async () => {
    await setup();
    fake.enqueue(
      { toolUses: [{ name: 'Bash', input: { command: 'curl https://example.com/install.sh', description: 'Fetch the installer' } }] },
      { text: 'Skipped the download.' },
    );
    const id = await task('Fetch it');
    const ask = await posted('🔐 Permission needed');
    const requestId = await requestIdOf(id);
    await click(ask, 'aq_request_deny', String(requestId), 'deny');
    const opened = await slack.waitForCall('views.open');
    const view = opened.args.view as { callback_id: string; private_metadata: string };
    expect(view.callback_id).toBe('aq_deny_request');
    await Fake.postToApp(
      app.url,
      interactionBody(
        viewSubmission({
          callbackId: view.callback_id,
          privateMetadata: view.private_metadata,
          values: { reason: { value: { type: 'plain_text_input', value: 'No downloads from agents; vendor it instead.' } } },
        }),
      ),
      { signingSecret: app.signingSecret },
    );
    await waitStatus(id, 'COMPLETED');
    const [denied] = toolResults();
    expect(denied.is_error).toBe(true);
    expect(textOf(denied)).toBe('A person denied this tool call: No downloads from agents; vendor it instead.');
    const redraw = await slack.waitForCall('chat.update', (c) => JSON.stringify(c.args.blocks).includes('Denied by'), 10_000);
    expect(JSON.stringify(redraw.args.blocks)).not.toContain('aq_request_deny');
    expect((await rt().db.taskResults.latest(id))?.summary).toBe('Skipped the download.');
  });

  it('posts a question with its options as buttons (hostile text shown literally); a click answers it', async () => {
    await setup();
    const question = `${HOSTILE} Which database?`;
    fake.enqueue(
      {
        toolUses: [
          {
            name: 'AskUserQuestion',
            input: {
              questions: [
                {
                  question,
                  header: 'Database',
                  options: [
                    { label: 'Postgres', description: HOSTILE },
                    { label: HOSTILE_LABEL, description: 'a file' },
                  ],
                  multiSelect: false,
                },
              ],
            },
          },
        ],
      },
      { text: 'Going with the second one.' },
    );
    const id = await task('Choose a database');
    const ask = await posted('❓ The agent asks');
    expect(showsLiterally(ask.args.blocks, HOSTILE)).toBe(true);
    expect(showsLiterally(ask.args.blocks, HOSTILE_LABEL)).toBe(true);
    expect(String(ask.args.text)).not.toContain('<!channel>');
    expect(await rt().db.tasks.get(id)).toMatchObject({ status: 'WAITING_INPUT' });

    const requestId = await requestIdOf(id);
    await click(ask, 'aq_request_option:0:1', `${requestId}:0:1`, 'option');
    await waitStatus(id, 'COMPLETED');
    const [answer] = toolResults();
    expect(answer.is_error).toBeFalsy();
    expect(textOf(answer)).toContain(`="${HOSTILE_LABEL}"`);
    const reply = await posted('💬 Answered');
    expect(showsLiterally(reply.args.blocks, HOSTILE_LABEL)).toBe(true);
  });

  it('a multi-select question takes several options: tick the boxes, then Submit', async () => {
    await setup();
    fake.enqueue(
      {
        toolUses: [
          {
            name: 'AskUserQuestion',
            input: {
              questions: [
                {
                  question: 'Which checks should run?',
                  header: 'Checks',
                  options: [
                    { label: 'Lint', description: 'biome' },
                    { label: HOSTILE_LABEL, description: 'jest' },
                    { label: 'Types', description: 'tsc' },
                  ],
                  multiSelect: true,
                },
              ],
            },
          },
        ],
      },
      { text: 'Running those.' },
    );
    const id = await task('Pick the checks');
    const ask = await posted('❓ The agent asks');
    const row = (ask.args.blocks as Array<{ type: string; block_id?: string; elements?: Array<Record<string, unknown>> }>).find(
      (b) => b.type === 'actions',
    );
    const [boxes, submit] = row?.elements ?? [];
    expect(boxes).toMatchObject({ type: 'checkboxes', action_id: 'aq_request_choices' });
    expect((boxes.options as Array<{ text: { text: string } }>).map((o) => o.text.text)).toEqual(['Lint', HOSTILE_LABEL, 'Types']);
    expect(submit).toMatchObject({ type: 'button', action_id: 'aq_request_submit_choices', text: { text: 'Submit' } });
    const blockId = String(row?.block_id);
    const ticked = (values: string[]) => ({
      [blockId]: { aq_request_choices: { type: 'checkboxes', selected_options: values.map((value) => ({ value })) } },
    });

    // Ticking a box is acknowledged and answers nothing yet.
    const tick = await Fake.postToApp(
      app.url,
      interactionBody({
        ...blockActions({
          actionId: 'aq_request_choices',
          value: '',
          blockId,
          stateValues: ticked(['0']),
          responseUrl: slack.responseUrl('tick'),
        }),
        actions: [
          { type: 'checkboxes', action_id: 'aq_request_choices', block_id: blockId, selected_options: [{ value: '0' }], action_ts: '1' },
        ],
      }),
      { signingSecret: app.signingSecret },
    );
    expect(tick.status).toBe(200);
    // Submit with nothing ticked says what to do, and the question stays open.
    await click(ask, 'aq_request_submit_choices', String(submit.value), 'none', { blockId, stateValues: ticked([]) });
    const none = await slack.waitForResponse((r) => r.id === 'none');
    expect(none.body).toMatchObject({ response_type: 'ephemeral', text: expect.stringContaining('Tick at least one option') });
    expect(await rt().db.tasks.get(id)).toMatchObject({ status: 'WAITING_INPUT' });

    await click(ask, 'aq_request_submit_choices', String(submit.value), 'submit', { blockId, stateValues: ticked(['2', '0']) });
    await waitStatus(id, 'COMPLETED');
    expect(textOf(toolResults()[0])).toContain('"Which checks should run?"="Lint, Types"');
    const redrawn = await slack.waitForResponse((r) => r.id === 'submit');
    expect(JSON.stringify(redrawn.body.blocks)).not.toContain('aq_request_submit_choices');
    const reply = await posted('💬 Answered');
    expect(showsLiterally(reply.args.blocks, 'Lint, Types')).toBe(true);
  });

  it('takes a reply in the thread as the answer to the open question', async () => {
    await setup();
    fake.enqueue(
      {
        toolUses: [
          {
            name: 'AskUserQuestion',
            input: {
              questions: [
                {
                  question: 'Tabs or spaces?',
                  header: 'Style',
                  options: [
                    { label: 'Tabs', description: 'one tab per level' },
                    { label: 'Spaces', description: 'two per level' },
                  ],
                  multiSelect: false,
                },
              ],
            },
          },
        ],
      },
      { text: 'Two spaces it is.' },
    );
    const id = await task('Format it');
    await posted('❓ The agent asks');
    // What the thread-reply listener does with a reply in a task's thread.
    expect(
      await rt().handler.execute('message_task', { task_id: id, text: 'Two spaces, like the rest' }, { source: 'slack', userId: 'U1' }),
    ).toMatchObject({
      delivery: 'answer',
      status: 'IN_PROGRESS',
    });
    await waitStatus(id, 'COMPLETED');
    expect(textOf(toolResults()[0])).toContain('"Tabs or spaces?"="Two spaces, like the rest"');
  });

  it('tells the model nobody answered after the timeout, and says so in the thread', async () => {
    await setup({ AQ_ASK_TIMEOUT_SECONDS: '1' });
    fake.enqueue(
      {
        toolUses: [
          {
            name: 'AskUserQuestion',
            input: {
              questions: [
                {
                  question: 'Ship on Friday?',
                  header: 'Release',
                  options: [
                    { label: 'Yes', description: 'ship it' },
                    { label: 'No', description: 'wait for Monday' },
                  ],
                  multiSelect: false,
                },
              ],
            },
          },
        ],
      },
      { text: 'Assumed no.' },
    );
    const id = await task('Plan the release');
    await waitStatus(id, 'COMPLETED');
    const [result] = toolResults();
    expect(textOf(result)).toContain('Nobody answered within 1 second');
    const note = await posted('⌛ No answer');
    expect(JSON.stringify(note.args.blocks)).toContain('the agent went on without it');
  });
});
