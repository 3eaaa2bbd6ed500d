import path from 'node:path';
import { driveTrain } from '../../../src/orchestrator/landing';
import { PrFollower } from '../../../src/orchestrator/pr-follower';
import { TaskStateMachine } from '../../../src/orchestrator/state-machine';
import { GitManagerTaskGit } from '../../../src/orchestrator/task-git';
import { renderResult } from '../../../src/slack/blocks/render';
import { installFakeForges, useForgeRemote, type FakeForges } from '../../support/fake-forges';
import { commitFile, gitOut } from '../../support/git-fixtures';
import { validateMessage, visibleTexts } from '../../support/slack-validator';
import { putTask } from '../../support/task-fixtures';
import { makeTempDir } from '../../support/tmp';
import { makeHarness, type Harness } from './harness';

const GH_URL = 'https://github.com/acme/widget/pull/7';
const GL_URL = 'https://gitlab.com/acme/widget/-/merge_requests/3';

const run = (name: string, status: string, conclusion = '') => ({ __typename: 'CheckRun', name, status, conclusion });
const context = (name: string, state: string) => ({ __typename: 'StatusContext', context: name, state });
/** A check the base branch requires (gh pr checks --required lists it). */
const required = <T extends object>(check: T) => ({ ...check, isRequired: true });

/**
 * A waiting PR/MR's checks, from the fake gh (`statusCheckRollup`) and glab (the MR's pipeline),
 * on get_task, get_merge_queue and their cards; and a landing through the forge that waits at the
 * head of its train until the checks are green. The PR follower and the train are driven one pass
 * at a time with an injected clock.
 */
describe('forge checks while a PR/MR waits', () => {
  let fake: FakeForges;
  let tmp: { dir: string; cleanup: () => Promise<void> };
  let h: Harness;
  const savedPath = process.env.PATH;

  beforeAll(async () => {
    tmp = await makeTempDir('aq-checks-');
    fake = await installFakeForges(tmp.dir);
    process.env.PATH = `${fake.bin}${path.delimiter}${savedPath}`;
  });
  beforeEach(async () => {
    await fake.reset();
    h = await makeHarness();
  });
  afterEach(() => h.cleanup());
  afterAll(async () => {
    process.env.PATH = savedPath;
    await tmp.cleanup();
  });

  const seen = (blocks: unknown) => visibleTexts(blocks).join('\n');
  function card(command: string, result: Record<string, unknown>): string {
    const rendered = renderResult(command, {}, result);
    expect(validateMessage(rendered as unknown as Record<string, unknown>)).toEqual([]);
    return seen(rendered.blocks);
  }

  it('gh: the rollup is counted on get_task, get_merge_queue and their cards, and each change redraws the card once', async () => {
    const id = await h.task('Reviewed');
    await putTask(h.rt.db, id, 'AWAITING_APPROVAL', { prUrl: GH_URL });
    await h.rt.db.mergeTrain.enter({ taskId: id, projectId: 'proj', train: 'project:proj' }, Date.now());
    let now = new Date();
    const follower = new PrFollower({ db: h.rt.db, events: h.rt.events, git: h.rt.git, now: () => now, log: () => undefined });
    const updates = () => h.eventsOf('task_updated', id).filter((e) => (e.payload.fields as string[]).includes('pr_checks'));

    expect(await h.rt.exec('get_task', { task_id: id })).not.toHaveProperty('pr_checks');
    await fake.setState('gh', {
      view: {
        state: 'OPEN',
        mergeable: 'MERGEABLE',
        statusCheckRollup: [run('build', 'COMPLETED', 'SUCCESS'), run('test', 'IN_PROGRESS'), context('lint', 'PENDING')],
      },
    });
    await follower.tick();
    expect((await h.rt.exec('get_task', { task_id: id })).pr_checks).toEqual({ state: 'pending', passing: 1, failing: 0, pending: 2 });
    expect(updates()).toHaveLength(1);
    expect(card('get_task', await h.rt.exec('get_task', { task_id: id }))).toContain('⏳ checks running: 2 of 3 (1 passing)');

    // The same checks a minute later: nothing new to say.
    now = new Date(now.getTime() + 61_000);
    await follower.tick();
    expect(updates()).toHaveLength(1);

    await fake.setState('gh', {
      view: {
        state: 'OPEN',
        mergeable: 'MERGEABLE',
        statusCheckRollup: [run('build', 'COMPLETED', 'SUCCESS'), run('test', 'COMPLETED', 'FAILURE'), context('lint', 'SUCCESS')],
      },
    });
    now = new Date(now.getTime() + 61_000);
    await follower.tick();
    expect(updates()).toHaveLength(2);
    const queue = await h.rt.exec('get_merge_queue', { project_id: 'proj' });
    expect((queue.entries as Array<Record<string, unknown>>)[0].pr_checks).toEqual({
      state: 'failing',
      passing: 2,
      failing: 1,
      pending: 0,
    });
    expect(card('get_merge_queue', queue)).toContain('❌ checks failing: 1 of 3 (2 passing)');
    expect(card('get_task', await h.rt.exec('get_task', { task_id: id }))).toContain('❌ checks failing: 1 of 3 (2 passing)');
    expect(await fake.calls('gh')).toContainEqual(['pr', 'view', GH_URL, '--json', 'state,mergeable,mergeStateStatus,statusCheckRollup']);

    // Once it no longer waits, it has no checks to show.
    await putTask(h.rt.db, id, 'COMPLETED');
    now = new Date(now.getTime() + 61_000);
    await follower.tick();
    expect(await h.rt.exec('get_task', { task_id: id })).not.toHaveProperty('pr_checks');
  });

  it('glab: the MR’s pipeline is its one check, running then passing', async () => {
    const id = await h.task('Reviewed on GitLab');
    await putTask(h.rt.db, id, 'AWAITING_APPROVAL', { prUrl: GL_URL });
    let now = new Date();
    const follower = new PrFollower({ db: h.rt.db, events: h.rt.events, git: h.rt.git, now: () => now, log: () => undefined });
    await fake.setState('glab', { view: { state: 'opened', head_pipeline: { status: 'running' } } });
    await follower.tick();
    expect((await h.rt.exec('get_task', { task_id: id })).pr_checks).toEqual({ state: 'pending', passing: 0, failing: 0, pending: 1 });
    await fake.setState('glab', { view: { state: 'opened', head_pipeline: { status: 'success' } } });
    now = new Date(now.getTime() + 61_000);
    await follower.tick();
    const shown = await h.rt.exec('get_task', { task_id: id });
    expect(shown.pr_checks).toEqual({ state: 'passing', passing: 1, failing: 0, pending: 0 });
    expect(card('get_task', shown)).toContain('✅ checks passing (1)');
    expect(await fake.calls('glab')).toContainEqual(['mr', 'view', '3', '--repo=https://gitlab.com/acme/widget', '--output=json']);
  });

  it('a landing through gh waits at the head of the train while required checks run, and merges once they are green, whatever the optional ones say', async () => {
    await useForgeRemote(h.workspace, h.origin, 'https://github.com/acme/widget.git');
    await gitOut(h.workspace, 'checkout', '-q', '-b', 'feature');
    await commitFile(h.workspace, 'feature.txt', 'feature\n', 'feature');
    await gitOut(h.workspace, 'checkout', '-q', 'main');
    const id = await h.task('Through the forge');
    await putTask(h.rt.db, id, 'AWAITING_APPROVAL', { prUrl: GH_URL, branchName: 'feature', workspaceId: 'ws0' });
    await h.rt.db.mergeTrain.enter({ taskId: id, projectId: 'proj', train: 'project:proj' }, Date.now());
    const log = () => undefined;
    const deps = {
      db: h.rt.db,
      events: h.rt.events,
      machine: new TaskStateMachine(h.rt.db, log),
      git: new GitManagerTaskGit(h.rt.git),
      config: h.rt.config,
      log,
    };
    const merges = async () => (await fake.calls('gh')).filter((c) => c[0] === 'pr' && c[1] === 'merge');

    await fake.setState('gh', {
      view: {
        state: 'OPEN',
        mergeable: 'MERGEABLE',
        statusCheckRollup: [required(run('test', 'QUEUED')), run('nightly', 'COMPLETED', 'FAILURE')],
      },
      mergedState: 'MERGED',
    });
    expect(await driveTrain(deps, 'project:proj')).toBe(0);
    const waiting = await h.rt.exec('get_task', { task_id: id });
    expect(waiting.status).toBe('AWAITING_APPROVAL');
    expect(waiting.merge_queue).toMatchObject({ place: 1, state: 'waiting', tries: 0 });
    expect(String((waiting.merge_queue as Record<string, unknown>).last_outcome)).toContain('still has checks running');
    expect(await merges()).toEqual([]);
    expect(h.eventsOf('landing_sent_back', id)).toEqual([]);

    await fake.setState('gh', {
      view: {
        state: 'OPEN',
        mergeable: 'MERGEABLE',
        statusCheckRollup: [
          required(run('test', 'COMPLETED', 'SUCCESS')),
          run('nightly', 'COMPLETED', 'FAILURE'),
          context('docs', 'PENDING'),
        ],
      },
      mergedState: 'MERGED',
    });
    // The card still shows the optional checks that fail or run; they do not hold the landing.
    const follower = new PrFollower({ db: h.rt.db, events: h.rt.events, git: h.rt.git, log: () => undefined });
    await follower.tick();
    expect(card('get_task', await h.rt.exec('get_task', { task_id: id }))).toContain('❌ checks failing: 1 of 3 (1 passing, 1 running)');
    expect(await driveTrain(deps, 'project:proj')).toBe(1);
    expect(await fake.calls('gh')).toContainEqual(['pr', 'checks', GH_URL, '--required', '--json', 'name,bucket']);
    expect(await merges()).toHaveLength(1);
    expect(await h.status(id)).toBe('COMPLETED');
    expect(h.eventsOf('landed', id)[0].payload).toMatchObject({ pr_url: GH_URL, branch: 'feature' });
    expect(await h.rt.db.mergeTrain.list({ projectId: 'proj' })).toEqual([]);
  });
});
