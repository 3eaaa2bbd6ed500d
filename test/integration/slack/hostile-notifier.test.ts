import { WebClient } from '@slack/web-api';
import type { EventType } from '../../../src/orchestrator/events';
import { SlackNotifier } from '../../../src/slack/notifier';
import { FakeSlack, type ApiCall } from '../../support/fake-slack';
import { HOSTILE, HOSTILE_BLOCK, showsLiterally, showsSomewhere } from '../../support/hostile';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

/** Every event the notifier posts, with hostile text in each field it shows. */
const EVENTS: Array<{ type: EventType; payload: Record<string, unknown> }> = [
  { type: 'task_started', payload: { title: HOSTILE, agent_name: HOSTILE, branch: HOSTILE } },
  { type: 'task_completed', payload: { title: HOSTILE, summary: HOSTILE_BLOCK, tokens: 10, branch: HOSTILE } },
  {
    type: 'task_failed',
    payload: { title: HOSTILE, error: HOSTILE, error_type: HOSTILE, suggested_fix: HOSTILE, retry_count: 1, max_retries: 3 },
  },
  { type: 'task_blocked', payload: { title: HOSTILE, reason: HOSTILE } },
  { type: 'task_awaiting_approval', payload: { title: HOSTILE, pr_url: `https://evil.example/x|<!channel>`, note: HOSTILE } },
  { type: 'pr_created', payload: { title: HOSTILE, pr_url: `<!channel> ${HOSTILE}` } },
  { type: 'chain_stuck', payload: { title: HOSTILE, stuck_downstream: [{ id: 't2', title: HOSTILE }] } },
  { type: 'task_paused', payload: { title: HOSTILE, reason: HOSTILE, resume_after: HOSTILE } },
  { type: 'task_stopped', payload: { title: HOSTILE } },
  { type: 'task_retrying', payload: { title: HOSTILE, reason: HOSTILE } },
  { type: 'merge_failed', payload: { title: HOSTILE, message: HOSTILE } },
  { type: 'plan_tasks_created', payload: { title: HOSTILE, tasks: [{ id: 't3', title: HOSTILE }] } },
];

describe('hostile text through every notifier message', () => {
  let rt: TestRuntime;
  let slack: FakeSlack;
  let stop: () => void;
  let notifier: SlackNotifier;
  let taskId: string;

  beforeAll(async () => {
    slack = await FakeSlack.start({ allowInvalidPayloads: true });
    rt = await makeTestRuntime({ SLACK_NOTIFY_CHANNEL: 'CNOTIFY' });
    notifier = new SlackNotifier(
      rt,
      new WebClient('xoxb-test', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } }),
      () => undefined,
    );
    stop = notifier.start();
    await rt.exec('create_project', { name: 'web' });
    await rt.exec('set_project_channel', { project_id: 'web', channel_id: 'CWEB' });
    taskId = ((await rt.exec('create_task', { project_id: 'web', title: HOSTILE, description: 'd' })) as { created: string }).created;
  });
  afterAll(async () => {
    stop();
    await rt.cleanup();
    await slack.close();
  });

  /** The messages an event caused (posted or updated). */
  async function messagesFor(emit: () => Promise<unknown>, expected = 1): Promise<ApiCall[]> {
    const before = slack.calls.length;
    await emit();
    await notifier.idle();
    await slack.waitFor(() => slack.calls.slice(before).filter((c) => c.method.startsWith('chat.')).length >= expected, 'the notification');
    await notifier.idle();
    return slack.calls.slice(before).filter((c) => c.method.startsWith('chat.'));
  }

  it.each(EVENTS.map((e) => [e.type, e] as const))(
    '%s: valid for Slack, nothing pings or links, the title shows as typed',
    async (_type, event) => {
      const calls = await messagesFor(() => rt.events.emit(event.type, { projectId: 'web', taskId, payload: event.payload }));
      expect(slack.takeViolations()).toEqual([]);
      const payloads = calls.map((c) => c.args);
      expect(payloads.some((p) => showsSomewhere(p, HOSTILE))).toBe(true);
      // Shown literally: formatting marks in a title must not turn into bold, italics or strikes.
      expect(payloads.some((p) => showsLiterally(p.blocks, HOSTILE))).toBe(true);
    },
  );

  it('task_progress and hook results: valid, escaped, shown', async () => {
    await messagesFor(() => rt.events.emit('task_started', { projectId: 'web', taskId, payload: { title: 'thread' } }));
    const progress = await messagesFor(() => rt.events.emit('task_progress', { projectId: 'web', taskId, payload: { text: HOSTILE } }));
    const hook = await messagesFor(() =>
      rt.events.emit('hook_run_failed', { projectId: 'web', payload: { hook_name: HOSTILE, response: HOSTILE_BLOCK } }),
    );
    const restart = await messagesFor(() => rt.events.emit('daemon_restart', { payload: { message: HOSTILE } }));
    const budget = await messagesFor(() =>
      rt.events.emit('budget_warning', { projectId: 'web', payload: { level: 90, message: HOSTILE } }),
    );
    const spent = await messagesFor(() =>
      rt.events.emit('budget_warning', { projectId: 'web', payload: { level: 100, message: HOSTILE } }),
    );
    expect(slack.takeViolations()).toEqual([]);
    expect(budget[0].args).toMatchObject({ channel: 'CWEB', text: expect.stringContaining('⚠️') });
    expect(spent[0].args.text).toContain('🛑');
    for (const [what, calls] of Object.entries({ progress, hook, budget, spent })) {
      expect({ what, shown: calls.some((c) => showsSomewhere(c.args, HOSTILE)) }).toEqual({ what, shown: true });
    }
    // The restart message is read as Markdown (its *x* becomes emphasis), but mentions stay text.
    expect(restart.some((c) => showsSomewhere(c.args, '<!channel>') && showsSomewhere(c.args, '<@U999>'))).toBe(true);
  });
});
