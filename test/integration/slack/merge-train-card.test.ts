import path from 'node:path';
import { WebClient } from '@slack/web-api';
import { FOLLOW_UP_KEY } from '../../../src/orchestrator/pr-follower';
import { renderResult } from '../../../src/slack/blocks/render';
import { SlackNotifier } from '../../../src/slack/notifier';
import { FakeSlack } from '../../support/fake-slack';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { validateMessage, visibleTexts } from '../../support/slack-validator';
import { putTask } from '../../support/task-fixtures';
import { cloneWorkspace, commitFile, createOriginRepo, gitOut } from '../../support/git-fixtures';

const AT = Date.UTC(2026, 10, 25, 12, 5);

/**
 * A task's place and state in its merge train on its cards: the thread root (redrawn as the
 * train moves, through the real notifier against the fake Slack) and get_task's card.
 */
describe('the merge train on the task cards', () => {
  let rt: TestRuntime;
  let slack: FakeSlack;
  let stop: () => void;
  let notifier: SlackNotifier;

  beforeEach(async () => {
    slack = await FakeSlack.start();
    rt = await makeTestRuntime();
    notifier = new SlackNotifier(
      rt,
      new WebClient('xoxb-test', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } }),
      () => undefined,
    );
    stop = notifier.start();
    await rt.exec('create_project', { name: 'web' });
    await rt.exec('set_project_channel', { project_id: 'web', channel_id: 'CWEB' });
  });
  afterEach(async () => {
    stop();
    await rt.cleanup();
    await slack.close();
  });

  const seen = (payload: unknown) => visibleTexts(payload).join('\n');

  async function queuedTask(title: string): Promise<{ id: string; ts: string }> {
    const id = (await rt.exec('create_task', { project_id: 'web', title, description: title })).created as string;
    await rt.events.emit('task_started', { projectId: 'web', taskId: id, payload: { title } });
    await notifier.idle();
    const thread = await rt.db.taskThreads.get(id);
    await putTask(rt.db, id, 'AWAITING_APPROVAL');
    await rt.db.mergeTrain.enter({ taskId: id, projectId: 'web', train: 'project:web' }, AT);
    return { id, ts: thread!.threadTs };
  }

  /** The root's latest redraw after `emit`. */
  async function rootAfter(ts: string, emit: () => Promise<unknown>): Promise<string> {
    const before = slack.callsTo('chat.update').length;
    await emit();
    await notifier.idle();
    const update = await slack.waitForCall('chat.update', (c) => c.args.ts === ts && slack.callsTo('chat.update').indexOf(c) >= before);
    expect(validateMessage(update.args)).toEqual([]);
    return seen(update.args.blocks);
  }

  it('the thread root shows the place and state as the train moves; a landing redraws the tasks behind it', async () => {
    const first = await queuedTask('First');
    const second = await queuedTask('Second');

    await rt.db.mergeTrain.advance(first.id, ['waiting'], 'checking', AT);
    const checking = await rootAfter(first.ts, () =>
      rt.events.emit('landing_started', { projectId: 'web', taskId: first.id, payload: { title: 'First', place: 1, tries: 0 } }),
    );
    expect(checking).toContain('🚂 #1 in the merge train · 🧪 checking since 12:05 UTC');

    await rt.db.mergeTrain.advance(first.id, ['checking'], 'sent_back', AT + 60_000, { lastOutcome: 'red', countTry: true });
    const sentBack = await rootAfter(first.ts, () =>
      rt.events.emit('landing_sent_back', { projectId: 'web', taskId: first.id, payload: { title: 'First', reason: 'red', tries: 1 } }),
    );
    expect(sentBack).toContain('🚂 #1 in the merge train · ↩️ sent back to its agent since 12:06 UTC · sent back 1 time');

    // The first lands (it left the train): the second's card moves up to #1 without an event of its own.
    await rt.db.mergeTrain.remove(first.id);
    const moved = await rootAfter(second.ts, () =>
      rt.events.emit('landed', { projectId: 'web', taskId: first.id, payload: { title: 'First', branch: 'b', into: 'main' } }),
    );
    expect(moved).toContain('Second');
    expect(moved).toContain('🚂 #1 in the merge train · ⏳ waiting since 12:05 UTC');
    const landedRoot = slack
      .callsTo('chat.update')
      .filter((c) => c.args.ts === first.ts)
      .at(-1)!;
    expect(seen(landedRoot.args.blocks)).not.toContain('merge train');
    expect(slack.takeViolations()).toEqual([]);
  });

  it('Approve queues a task with work to land: landing_queued redraws its root with its place at once, and the card says so', async () => {
    await queuedTask('Ahead');
    const workspace = await cloneWorkspace(await createOriginRepo(rt.home), path.join(rt.home, 'ws-web'));
    await gitOut(workspace, 'checkout', '-q', '-b', 'aq/review');
    await commitFile(workspace, 'feature.txt', 'f\n');
    await rt.db.workspaces.create({ id: 'ws-web', projectId: 'web', name: 'ws-web', path: workspace, sourceType: 'clone', repoId: null });
    const review = await queuedTask('Review me');
    await rt.db.mergeTrain.remove(review.id);
    await putTask(rt.db, review.id, 'AWAITING_APPROVAL', { workspaceId: 'ws-web', branchName: 'aq/review' });
    // The head of the train is landing in another process: the approval queues behind it.
    expect(await rt.db.mergeTrain.acquireLock('project:web', 'another process', 600_000, Date.now())).toBe(true);
    let approved: Record<string, unknown> = {};
    const root = await rootAfter(review.ts, async () => {
      approved = await rt.exec('approve_task', { task_id: review.id });
    });
    expect(approved).toMatchObject({ queued_for_landing: true, landed: false, landing: 'Queued for landing: #2 in the merge train.' });
    expect(root).toContain('🚂 #2 in the merge train · ⏳ waiting since');
    const card = renderResult('approve_task', {}, approved as never);
    expect(validateMessage(card as unknown as Record<string, unknown>)).toEqual([]);
    expect(seen(card.blocks)).toContain('Queued for landing: #2 in the merge train.');
    expect(await rt.exec('get_task', { task_id: review.id })).toMatchObject({ status: 'AWAITING_APPROVAL' });
  });

  it('the thread root shows a waiting PR’s checks as the PR follower last saw them', async () => {
    const waiting = await queuedTask('Reviewed');
    await putTask(rt.db, waiting.id, 'AWAITING_APPROVAL', { prUrl: 'https://github.com/acme/widget/pull/7' });
    const since = new Date(AT).toISOString();
    await rt.db.state.set(FOLLOW_UP_KEY, { [waiting.id]: { since, remindedAt: null, checks: { passing: 4, failing: 1, pending: 1 } } });
    const root = await rootAfter(waiting.ts, () =>
      rt.events.emit('task_updated', { projectId: 'web', taskId: waiting.id, payload: { title: 'Reviewed', fields: ['pr_checks'] } }),
    );
    expect(root).toContain('Pull request: https://github.com/acme/widget/pull/7 · ❌ checks failing: 1 of 6 (4 passing, 1 running)');
  });

  it('get_task’s card shows the place, and nothing about a train for a task outside one', async () => {
    const queued = await queuedTask('Queued');
    await rt.db.mergeTrain.advance(queued.id, ['waiting'], 'merging', AT);
    const card = renderResult('get_task', {}, await rt.exec('get_task', { task_id: queued.id }));
    expect(validateMessage(card as unknown as Record<string, unknown>)).toEqual([]);
    expect(seen(card.blocks)).toContain('🚂 #1 in the merge train · 🔀 merging since 12:05 UTC');

    const free = (await rt.exec('create_task', { project_id: 'web', title: 'Free', description: 'x' })).created as string;
    expect(seen(renderResult('get_task', {}, await rt.exec('get_task', { task_id: free })).blocks)).not.toContain('merge train');
  });
});
