// @database-dependent: touched files are joined in SQL and each overlap is one row keyed on its pair, written by whichever process sees it first.
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { GitManager } from '../../../src/git/git-manager';
import { TaskRadar } from '../../../src/orchestrator/conflict-radar';
import { makeHarness, untilAborted, waitFor, writeIn, type Harness } from './harness';

jest.setTimeout(120_000);

/** A promise and the function that settles it: the test says when a scripted agent goes on. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open: () => open() };
}

describe('conflict radar: files touched by live tasks and their overlaps (real git workspaces)', () => {
  let h: Harness;

  afterEach(async () => {
    await h?.cleanup();
  });

  it('records each task’s files, finds the shared one once per pair, and clears it when one side drops it', async () => {
    h = await makeHarness({ agents: 2, workspaces: 2 });
    const dropShared = gate();
    const finish = gate();
    const runs = new Map<string, string>();
    h.adapter.fallback = async (req) => {
      runs.set(req.taskId, req.cwd);
      const isFirst = (await h.rt.db.tasks.get(req.taskId))?.title === 'Edit a';
      const mine = isFirst ? 'src/a.ts' : 'src/b.ts';
      await writeIn(req, mine, `${req.taskId}\n`);
      await writeIn(req, 'src/shared.ts', `${req.taskId}\n`);
      req.onProgress?.('edited');
      if (isFirst) {
        await Promise.race([dropShared.opened, untilAborted(req)]);
        await rm(path.join(req.cwd, 'src/shared.ts'));
        req.onProgress?.('put shared.ts back');
      }
      await Promise.race([finish.opened, untilAborted(req)]);
      return {};
    };
    await h.start();
    const first = await h.task('Edit a');
    const second = await h.task('Edit b');

    await waitFor(async () => h.eventsOf('overlap_detected').length > 0, 60_000, 'overlap_detected');
    const [overlap, ...more] = await h.rt.db.overlaps.list({ projectId: 'proj' });
    expect(more).toEqual([]);
    const [a, b] = first < second ? [first, second] : [second, first];
    expect(overlap).toMatchObject({ taskA: a, taskB: b, projectId: 'proj', repoKey: '', files: ['src/shared.ts'] });
    expect(await h.rt.db.touchedFiles.list(first)).toEqual(['src/a.ts', 'src/shared.ts']);
    expect(await h.rt.db.touchedFiles.list(second)).toEqual(['src/b.ts', 'src/shared.ts']);
    const detected = h.eventsOf('overlap_detected');
    expect(detected).toHaveLength(1);
    expect(detected[0].payload).toMatchObject({ task_ids: [a, b], files: ['src/shared.ts'], changed: false });
    expect((detected[0].payload.tasks as Array<{ title: string; agent: string }>).map((t) => t.title).sort()).toEqual(['Edit a', 'Edit b']);

    // Another process (a worker elsewhere, a restarted daemon) looking at the same workspace
    // writes the same rows and announces nothing new.
    const elsewhere = new TaskRadar(
      { db: h.rt.db, events: h.rt.events, git: new GitManager(), log: () => undefined },
      { id: second, projectId: 'proj' },
      { path: runs.get(second)!, repoId: null },
      'main',
    );
    await elsewhere.refresh();
    expect(await h.rt.db.touchedFiles.list(second)).toEqual(['src/b.ts', 'src/shared.ts']);
    expect(h.eventsOf('overlap_detected')).toHaveLength(1);
    expect(await h.rt.db.overlaps.list()).toHaveLength(1);

    dropShared.open();
    const cleared = await waitFor(async () => h.eventsOf('overlap_cleared')[0], 60_000, 'overlap_cleared');
    expect(cleared.payload).toMatchObject({ task_ids: [a, b], files: ['src/shared.ts'] });
    expect(await h.rt.db.overlaps.list()).toEqual([]);
    expect(await h.rt.db.touchedFiles.list(first)).toEqual(['src/a.ts']);
    expect(h.eventsOf('overlap_detected')).toHaveLength(1);

    finish.open();
    await h.waitStatus(first, 'COMPLETED');
    await h.waitStatus(second, 'COMPLETED');
  });

  it('an overlap ends with its task: a stopped task’s overlap is cleared and its files forgotten', async () => {
    h = await makeHarness({ agents: 2, workspaces: 2 });
    h.adapter.fallback = async (req) => {
      await writeIn(req, 'src/shared.ts', `${req.taskId}\n`);
      req.onProgress?.('edited');
      await untilAborted(req);
      return { status: 'aborted' };
    };
    await h.start();
    const first = await h.task('One');
    const second = await h.task('Two');
    await waitFor(async () => h.eventsOf('overlap_detected').length === 1, 60_000, 'overlap_detected');
    expect(await h.rt.exec('stop_task', { task_id: first })).not.toHaveProperty('error');
    await waitFor(async () => h.eventsOf('overlap_cleared').length === 1, 60_000, 'overlap_cleared');
    expect(await h.rt.db.overlaps.list()).toEqual([]);
    await waitFor(async () => (await h.rt.db.touchedFiles.list(first)).length === 0, 60_000, 'the stopped task’s files to go');
    expect(await h.rt.db.touchedFiles.list(second)).toEqual(['src/shared.ts']);
    expect(await h.rt.exec('stop_task', { task_id: second })).not.toHaveProperty('error');
  });

  it('an overlap is withdrawn only while the two tasks share no file: a radar with an older view of the other side leaves it', async () => {
    // Five agents refreshing at once: one read the other's files before that side stored them and
    // recorded the pair; its withdrawal must not remove the live overlap (found by the real-CLI merge train e2e).
    h = await makeHarness();
    const scope = { projectId: 'proj', repoKey: '' };
    const [x, y] = [await h.task('X'), await h.task('Y')];
    await h.rt.db.touchedFiles.replace(x, scope, ['src/shared.ts', 'src/x.ts']);
    await h.rt.db.touchedFiles.replace(y, scope, ['src/shared.ts']);
    expect(await h.rt.db.overlaps.record(y, x, scope, ['src/shared.ts'], Date.now())).toBe('detected');
    expect(await h.rt.db.overlaps.clearIfDisjoint(x, y)).toBe(false);
    expect((await h.rt.db.overlaps.list()).map((o) => o.files)).toEqual([['src/shared.ts']]);
    // The same file in another repository of the project is no overlap.
    await h.rt.db.touchedFiles.replace(y, { projectId: 'proj', repoKey: 'other-repo' }, ['src/shared.ts']);
    expect(await h.rt.db.overlaps.clearIfDisjoint(y, x)).toBe(true);
    expect(await h.rt.db.overlaps.list()).toEqual([]);
    expect(await h.rt.db.overlaps.clearIfDisjoint(x, y)).toBe(false);
  });

  it('serialize: a READY task naming a file a running task touched waits, says why, and starts after it', async () => {
    h = await makeHarness({ agents: 2, workspaces: 2 });
    expect(await h.rt.exec('edit_project', { project_id: 'proj', overlap_policy: 'serialize' })).toEqual({
      updated: 'proj',
      fields: ['overlap_policy'],
    });
    expect(await h.rt.exec('get_project', { project_id: 'proj' })).toMatchObject({ id: 'proj', overlap_policy: 'serialize' });
    const finish = gate();
    h.adapter.fallback = async (req) => {
      const title = (await h.rt.db.tasks.get(req.taskId))?.title;
      await writeIn(req, title === 'Unrelated' ? 'docs/other.md' : 'src/shared.ts', `${req.taskId}\n`);
      req.onProgress?.('edited');
      if (title === 'First') await Promise.race([finish.opened, untilAborted(req)]);
      return {};
    };
    await h.start();
    const first = await h.task('First');
    await waitFor(async () => (await h.rt.db.touchedFiles.list(first)).includes('src/shared.ts'), 60_000, 'the first task’s files');
    const second = await h.task('Second', { description: 'Refactor `src/shared.ts` and its callers.' });
    const unrelated = await h.task('Unrelated', { description: 'Edit docs/other.md only.' });
    await h.waitStatus(unrelated, 'COMPLETED');
    // A whole scheduling pass went by with an idle agent: the overlapping task is still held.
    expect(await h.status(second)).toBe('READY');
    const shown = (await h.rt.exec('get_task', { task_id: second })) as Record<string, unknown>;
    expect(shown.waiting_code).toBe('overlap_serialized');
    expect(String(shown.waiting_reason)).toContain(first);
    expect(String(shown.waiting_reason)).toContain('src/shared.ts');
    finish.open();
    await h.waitStatus(first, 'COMPLETED');
    await h.waitStatus(second, 'COMPLETED');
  });
});
