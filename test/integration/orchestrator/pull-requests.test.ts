import path from 'node:path';
import { GitManager } from '../../../src/git/git-manager';
import { FOLLOW_UP_KEY, PrFollower } from '../../../src/orchestrator/pr-follower';
import { ForgeReadinessRecorder } from '../../../src/orchestrator/forge-readiness';
import { installFakeForges, useForgeRemote, type FakeForges, type FakeForgeState, type ForgeTool } from '../../support/fake-forges';
import { gitOut } from '../../support/git-fixtures';
import { putTask } from '../../support/task-fixtures';
import { makeTempDir } from '../../support/tmp';
import { makeHarness, waitFor, writeIn, type Harness } from './harness';

/**
 * The PR/MR lifecycle with the real daemon, real git repositories and fake gh/glab programs
 * first on PATH: opening on completion, following while AWAITING_APPROVAL, landing through the train on Approve.
 */

const GH_URL = 'https://github.com/acme/widget/pull/7';
const GL_URL = 'https://gitlab.com/acme/widget/-/merge_requests/3';
const GL_REPO = '--repo=https://gitlab.com/acme/widget';

describe('pull and merge requests', () => {
  let fake: FakeForges;
  let tmp: { dir: string; cleanup: () => Promise<void> };
  let h: Harness | undefined;
  const saved = { PATH: process.env.PATH, AQ_MERGE_METHOD: process.env.AQ_MERGE_METHOD };

  beforeAll(async () => {
    tmp = await makeTempDir('aq-forges-');
    fake = await installFakeForges(tmp.dir);
    process.env.PATH = `${fake.bin}${path.delimiter}${saved.PATH}`;
  });
  beforeEach(() => fake.reset());
  afterEach(async () => {
    await h?.cleanup();
    h = undefined;
    if (saved.AQ_MERGE_METHOD === undefined) delete process.env.AQ_MERGE_METHOD;
    else process.env.AQ_MERGE_METHOD = saved.AQ_MERGE_METHOD;
  });
  afterAll(async () => {
    process.env.PATH = saved.PATH;
    await tmp.cleanup();
  });

  /** A daemon whose workspace's origin looks like `remote`, and a task needing approval, run to AWAITING_APPROVAL. */
  async function awaitingTask(remote: string | null, tool: ForgeTool, state: FakeForgeState, dependant = false) {
    await fake.setState(tool, state);
    h = await makeHarness();
    if (remote) await useForgeRemote(h.workspace, h.origin, remote);
    h.adapter.fallback = async (req) => {
      await writeIn(req, 'feature.txt', 'f\n');
      return { summary: 'feature done' };
    };
    await h.start();
    const id = await h.task('Needs review', { requiresApproval: true });
    const after = dependant ? await h.task('After review', {}, [id]) : null;
    return { h, id, after };
  }

  const onOrigin = (h: Harness, branch: string) => gitOut(h.origin, 'branch', '--list', branch);
  /** Calls other than the daemon's background `auth status` readiness check. */
  const workCalls = async (tool: ForgeTool) => (await fake.calls(tool)).filter((c) => !(c[0] === 'auth' && c[1] === 'status'));
  const callsWith = async (tool: ForgeTool, ...prefix: string[]) =>
    (await fake.calls(tool)).filter((c) => prefix.every((p, i) => c[i] === p));

  describe('GitHub through gh', () => {
    const remote = 'https://github.com/acme/widget.git';

    it('a PR merged on GitHub completes the task and deletes its branch', async () => {
      const { h, id } = await awaitingTask(remote, 'gh', {
        url: GH_URL,
        view: { state: 'MERGED', mergeable: 'UNKNOWN', statusCheckRollup: [] },
      });
      await h.waitStatus(id, 'COMPLETED');
      const task = (await h.rt.db.tasks.get(id))!;
      expect(task.prUrl).toBe(GH_URL);
      expect(await callsWith('gh', 'pr', 'create')).toContainEqual(expect.arrayContaining([`--head=${task.branchName}`, '--base=main']));
      expect(await callsWith('gh', 'pr', 'view', GH_URL)).not.toHaveLength(0);
      const completed = await waitFor(async () => h.eventsOf('task_completed', id)[0]);
      expect(completed.payload).toMatchObject({
        merged: true,
        merged_on: 'github',
        pr_url: GH_URL,
        branch: task.branchName,
        branch_deleted: true,
      });
      expect(await onOrigin(h, task.branchName!)).toBe('');
    });

    it('a PR closed without merging blocks the task and reports the stuck chain', async () => {
      const { h, id, after } = await awaitingTask(remote, 'gh', { url: GH_URL, view: { state: 'CLOSED' } }, true);
      await h.waitStatus(id, 'BLOCKED');
      const blocked = await waitFor(async () => h.eventsOf('task_blocked', id)[0]);
      expect(String(blocked.payload.reason)).toContain(`The pull request ${GH_URL} was closed without merging`);
      const stuck = await waitFor(async () => h.eventsOf('chain_stuck', id)[0]);
      expect(stuck.payload.stuck_downstream).toEqual([{ id: after, title: 'After review' }]);
      expect(await h.status(after!)).toBe('DEFINED');
    });

    it('Approve queues the PR for landing; with no daemon the train lands it through gh at once, with the configured method', async () => {
      process.env.AQ_MERGE_METHOD = 'squash';
      const checks = [{ __typename: 'CheckRun', name: 'ci', status: 'COMPLETED', conclusion: 'SUCCESS' }];
      const { h, id } = await awaitingTask(remote, 'gh', {
        url: GH_URL,
        view: { state: 'OPEN', mergeable: 'MERGEABLE', statusCheckRollup: checks },
        mergedState: 'MERGED',
      });
      await h.waitStatus(id, 'AWAITING_APPROVAL');
      // A CLI-only user: no daemon lands it later, so approve_task drives the train itself.
      await h.rt.stopDaemon();
      const branch = (await h.rt.db.tasks.get(id))!.branchName!;
      expect(await h.rt.exec('approve_task', { task_id: id })).toEqual({
        approved: id,
        title: 'Needs review',
        queued_for_landing: true,
        status: 'COMPLETED',
        landed: true,
        landing: 'It landed and is completed.',
        pr_url: GH_URL,
      });
      expect(await callsWith('gh', 'pr', 'merge')).toEqual([['pr', 'merge', GH_URL, '--squash']]);
      expect(h.eventsOf('landing_queued', id).map((e) => e.payload)).toEqual([{ title: 'Needs review', train: 'project:proj', place: 1 }]);
      expect(h.eventsOf('landed', id)).toHaveLength(1);
      expect(h.eventsOf('task_completed', id)).toHaveLength(1);
      expect(await onOrigin(h, branch)).toBe('');
      expect(await h.rt.exec('approve_task', { task_id: id })).toEqual({
        error: `Task '${id}' is COMPLETED, not AWAITING_APPROVAL, so there is nothing to approve.`,
      });
    });

    it('a PR the forge refuses (conflicts, then a failing check) is sent back to its agent, then BLOCKED; nothing is merged', async () => {
      const { h, id } = await awaitingTask(remote, 'gh', {
        url: GH_URL,
        view: { state: 'OPEN', mergeable: 'CONFLICTING', statusCheckRollup: [] },
      });
      expect(await h.rt.exec('edit_project', { project_id: 'proj', landing_tries: 2 })).toMatchObject({ updated: 'proj' });
      const failing = [
        { __typename: 'StatusContext', context: 'lint', state: 'FAILURE', isRequired: true },
        { __typename: 'CheckRun', name: 'test', status: 'COMPLETED', conclusion: 'SUCCESS', isRequired: true },
      ];
      // The agent's fix of the conflict leaves a failing check instead.
      h.adapter.fallback = async (req, attempt) => {
        await writeIn(req, 'feature.txt', `f${attempt}\n`);
        if (attempt === 2)
          await fake.setState('gh', { url: GH_URL, view: { state: 'OPEN', mergeable: 'MERGEABLE', statusCheckRollup: failing } });
        return { summary: `feature done, try ${attempt}` };
      };
      await h.waitStatus(id, 'AWAITING_APPROVAL');
      await h.rt.stopDaemon();
      expect(await h.rt.exec('approve_task', { task_id: id })).toMatchObject({
        approved: id,
        queued_for_landing: true,
        landed: false,
        landing: `It could not land yet and was sent back to its agent: Merging ${GH_URL} was refused: The pull request ${GH_URL} has conflicts with its target branch; resolve them (or restart the task) and approve again.`,
      });
      expect(await h.rt.exec('approve_task', { task_id: id })).toEqual({
        error: expect.stringMatching(
          /^Task '.+' is (READY|IN_PROGRESS|ASSIGNED), not AWAITING_APPROVAL, so there is nothing to approve\.$/,
        ),
      });
      await h.start();
      await h.waitStatus(id, 'BLOCKED');
      const blocked = await waitFor(async () => h.eventsOf('task_blocked', id)[0]);
      expect(String(blocked.payload.reason)).toContain(`The pull request ${GH_URL} has failing checks (lint); fix them and approve again.`);
      expect(h.eventsOf('landing_sent_back', id)).toHaveLength(1);
      expect(await callsWith('gh', 'pr', 'merge')).toEqual([]);
    });

    it('gh logged out is said on Approve and in get_status; gh missing too', async () => {
      const { h, id } = await awaitingTask(remote, 'gh', { url: GH_URL, view: { state: 'OPEN', mergeable: 'MERGEABLE' } });
      await h.waitStatus(id, 'AWAITING_APPROVAL');
      await fake.setState('gh', { auth: false });
      expect(await h.rt.exec('approve_task', { task_id: id })).toEqual({
        error: `Task '${id}' was not approved: The GitHub CLI (gh) is not logged in; run \`gh auth login\` on the machine running Agent Queue.`,
      });
      // get_status reads what the daemon's recorder last stored; a fresh check sees gh logged out.
      await new ForgeReadinessRecorder(
        new GitManager({ ghPath: path.join(fake.bin, 'gh'), glabPath: path.join(fake.bin, 'glab') }).forges,
        h.rt.db,
        () => undefined,
      ).refresh();
      expect((await h.rt.exec('get_status')).forges).toEqual({
        github: 'unauthenticated',
        gitlab: 'ready',
        checked_at: expect.any(String),
      });
      expect(await h.status(id)).toBe('AWAITING_APPROVAL');
      const without = new GitManager({ ghPath: path.join(tmp.dir, 'no-such-gh'), glabPath: path.join(tmp.dir, 'no-such-glab') });
      expect(await without.forges.readiness()).toEqual({ github: 'missing', gitlab: 'missing' });
    });
  });

  describe('GitLab through glab', () => {
    const remote = 'git@gitlab.com:acme/widget.git';

    it('opens an MR on completion; merged on GitLab completes the task', async () => {
      const { h, id } = await awaitingTask(remote, 'glab', { url: GL_URL, view: { state: 'merged', has_conflicts: false } });
      await h.waitStatus(id, 'COMPLETED');
      const task = (await h.rt.db.tasks.get(id))!;
      expect(task.prUrl).toBe(GL_URL);
      expect(await callsWith('glab', 'mr', 'create')).toContainEqual(
        expect.arrayContaining([`--source-branch=${task.branchName}`, '--target-branch=main', '--yes']),
      );
      expect(await callsWith('glab', 'mr', 'view')).toContainEqual(['mr', 'view', '3', GL_REPO, '--output=json']);
      expect((await waitFor(async () => h.eventsOf('task_completed', id)[0])).payload).toMatchObject({ merged: true, merged_on: 'gitlab' });
      expect(await workCalls('gh')).toEqual([]);
    });

    it('Approve queues the MR: a failed pipeline sends it back, and once green the train merges it with the configured method', async () => {
      process.env.AQ_MERGE_METHOD = 'rebase';
      const { h, id } = await awaitingTask(remote, 'glab', {
        url: GL_URL,
        view: { state: 'opened', head_pipeline: { status: 'failed' } },
        mergedState: 'merged',
      });
      h.adapter.fallback = async (req, attempt) => {
        await writeIn(req, 'feature.txt', `f${attempt}\n`);
        if (attempt === 2)
          await fake.setState('glab', {
            url: GL_URL,
            view: { state: 'opened', head_pipeline: { status: 'success' } },
            mergedState: 'merged',
          });
        return { summary: `feature done, try ${attempt}` };
      };
      await h.waitStatus(id, 'AWAITING_APPROVAL');
      expect(await h.rt.exec('approve_task', { task_id: id })).toMatchObject({ approved: id, queued_for_landing: true });
      await h.waitStatus(id, 'COMPLETED');
      const sentBack = h.eventsOf('landing_sent_back', id);
      expect(sentBack).toHaveLength(1);
      expect(String(sentBack[0].payload.reason)).toContain(`The merge request ${GL_URL} has failing checks (pipeline)`);
      expect(await callsWith('glab', 'mr', 'merge')).toEqual([['mr', 'merge', '3', GL_REPO, '--rebase', '--yes']]);
      expect(h.eventsOf('landed', id)).toHaveLength(1);
    });
  });

  describe('plain git (a bare origin)', () => {
    it('opens no PR; Approve lands the branch through the train (merged into main and pushed), like the no-approval path', async () => {
      const { h, id } = await awaitingTask(null, 'gh', {});
      await h.waitStatus(id, 'AWAITING_APPROVAL');
      const waiting = await waitFor(async () => h.eventsOf('task_awaiting_approval', id)[0]);
      expect(waiting.payload.pr_url).toBeNull();
      await expect(gitOut(h.origin, 'show', 'main:feature.txt')).rejects.toThrow();
      // A CLI-only user: approve_task lands it through the train itself.
      await h.rt.stopDaemon();
      expect(await h.rt.exec('approve_task', { task_id: id })).toEqual({
        approved: id,
        title: 'Needs review',
        queued_for_landing: true,
        status: 'COMPLETED',
        landed: true,
        landing: 'It landed and is completed.',
      });
      expect(await gitOut(h.origin, 'show', 'main:feature.txt')).toBe('f');
      expect(await h.status(id)).toBe('COMPLETED');
      expect([...(await workCalls('gh')), ...(await workCalls('glab'))]).toEqual([]);
      expect((await h.rt.db.workspaces.get('ws0'))!.lockedByTaskId).toBeNull();
    });
  });

  describe('reminders', () => {
    it('reminds in the task thread every hour, escalated after a day, and survives a restart', async () => {
      h = await makeHarness();
      const id = await h.task('Waiting for a person');
      await putTask(h.rt.db, id, 'AWAITING_APPROVAL');
      const start = Date.now();
      let now = new Date(start);
      const follower = () => new PrFollower({ db: h!.rt.db, events: h!.rt.events, git: h!.rt.git, now: () => now, log: () => undefined });
      const first = follower();
      const reminders = () => h!.eventsOf('task_awaiting_approval', id).filter((e) => e.payload.reminder);
      const at = async (f: PrFollower, minutes: number) => {
        now = new Date(start + minutes * 60_000);
        await f.tick();
        return reminders().length;
      };
      expect(await at(first, 0)).toBe(0);
      expect(await at(first, 59)).toBe(0);
      expect(await at(first, 61)).toBe(1);
      expect(reminders()[0].payload).toMatchObject({ title: 'Waiting for a person', reminder: true, escalated: false, waiting_hours: 1 });
      expect(await at(first, 100)).toBe(1);
      expect(await at(first, 25 * 60)).toBe(2);
      expect(reminders()[1].payload).toMatchObject({ escalated: true, waiting_hours: 25 });
      expect(String(reminders()[1].payload.note)).toContain('after 25 hours');
      // A new daemon reads when the last reminder went out from the database.
      expect(await at(follower(), 25 * 60 + 30)).toBe(2);
      await putTask(h.rt.db, id, 'COMPLETED');
      await at(first, 30 * 60);
      expect(await h.rt.db.state.get(FOLLOW_UP_KEY, { x: 1 })).toEqual({});
    });
  });
});
