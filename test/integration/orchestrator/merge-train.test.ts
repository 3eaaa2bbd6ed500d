import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AgentRunRequest } from '../../../src/agents/adapter';
import { ORDINARY_TEXT, writeAppFiles } from '../../support/app-files';
import { commitFile, gitOut } from '../../support/git-fixtures';
import { makeTempDirOutsideTmp } from '../../support/tmp';
import { makeHarness, waitFor, writeIn, type Harness } from './harness';

jest.setTimeout(240_000);

const LINES = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`);

/** The task's edit of the shared file: its own line, ten lines from the others'. */
async function editLine(req: AgentRunRequest, line: number): Promise<void> {
  const lines = (await readFile(path.join(req.cwd, 'lines.txt'), 'utf8')).trimEnd().split('\n');
  lines[line - 1] = `line ${line} edited by ${req.taskId}`;
  await writeIn(req, 'lines.txt', `${lines.join('\n')}\n`);
}

/** How many commits of origin's main carry the task's id. */
async function commitsOnMain(origin: string, taskId: string): Promise<number> {
  const shas = await gitOut(origin, 'log', 'main', '--fixed-strings', `--grep=Task-Id: ${taskId}`, '--format=%H');
  return shas.split('\n').filter(Boolean).length;
}

describe('the merge train (agent double, real git origin)', () => {
  let h: Harness;
  let cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await h.cleanup();
    for (const cleanup of cleanups.reverse()) await cleanup();
    cleanups = [];
  });

  /**
   * One task lands through `check`: the agent writes `file` (its name without `.txt`, as its
   * content), and the task completes. What the check saw, it leaves in the workspace's `.git`.
   */
  async function landOneTaskThrough(check: string, file: string): Promise<void> {
    expect(await h.rt.exec('edit_project', { project_id: 'proj', check_command: check })).toMatchObject({ updated: 'proj' });
    h.adapter.fallback = async (req) => {
      await writeIn(req, file, `${path.basename(file, '.txt')}\n`);
      return { summary: `wrote ${file}` };
    };
    await h.start();
    await h.waitStatus(await h.task(`Land ${file}`), 'COMPLETED');
  }

  async function setUp(settings: Record<string, unknown>): Promise<void> {
    h = await makeHarness({ agents: 3, workspaces: 3 });
    await commitFile(h.workspace, 'lines.txt', `${LINES.join('\n')}\n`, 'lines');
    await gitOut(h.workspace, 'push', 'origin', 'main');
    expect(await h.rt.exec('edit_project', { project_id: 'proj', ...settings })).toMatchObject({ updated: 'proj' });
  }

  it('lands tasks editing one file one at a time in train order, each commit once; a red check sends one back and its fix lands', async () => {
    await setUp({ check_command: 'test ! -f bad.txt' });
    const ids: string[] = [];
    const lineOf = new Map<string, number>();
    h.adapter.fallback = async (req, attempt) => {
      if (attempt === 1) {
        await editLine(req, lineOf.get(req.taskId) ?? 1);
        if (req.taskId === ids[1]) await writeIn(req, 'bad.txt', 'breaks the check\n');
        return { summary: `edited line ${lineOf.get(req.taskId)}` };
      }
      // The follow-up: the check's failure is the instruction, and the agent fixes what it names.
      expect(req.prompt).toContain('test ! -f bad.txt');
      await gitOut(req.cwd, 'rm', '-q', 'bad.txt');
      return { summary: 'removed bad.txt' };
    };
    await h.start();
    for (const [i, title] of ['First', 'Second', 'Third'].entries()) {
      const id = await h.task(title);
      ids.push(id);
      lineOf.set(id, 5 + i * 10);
    }
    for (const id of ids) await h.waitStatus(id, 'COMPLETED', 180_000);

    const landed = h.eventsOf('landed').map((e) => e.taskId);
    expect([...landed].sort()).toEqual([...ids].sort());
    // The sent-back task landed after the ones that passed at once.
    expect(landed.at(-1)).toBe(ids[1]);
    const sentBack = h.eventsOf('landing_sent_back');
    expect(sentBack.map((e) => e.taskId)).toEqual([ids[1]]);
    expect(sentBack[0].payload).toMatchObject({ tries: 1, landing_tries: 3 });
    expect(String(sentBack[0].payload.reason)).toContain('failed with exit code 1');

    // Origin's main: every task's commits exactly once, in the order the train landed them.
    expect(await commitsOnMain(h.origin, ids[0])).toBe(1);
    expect(await commitsOnMain(h.origin, ids[1])).toBe(2);
    expect(await commitsOnMain(h.origin, ids[2])).toBe(1);
    const order = (await gitOut(h.origin, 'log', 'main', '--reverse', '--format=%(trailers:key=Task-Id,valueonly)'))
      .split('\n')
      .map((id) => id.trim())
      .filter(Boolean);
    expect([...new Set(order)]).toEqual(landed);
    const lines = await gitOut(h.origin, 'show', 'main:lines.txt');
    for (const id of ids) expect(lines).toContain(`edited by ${id}`);
    await expect(gitOut(h.origin, 'show', 'main:bad.txt')).rejects.toThrow();

    // Each landing started once per try, and the train is empty with its lock free.
    expect(h.eventsOf('landing_started').filter((e) => e.taskId === ids[1])).toHaveLength(2);
    expect(h.eventsOf('landing_started').filter((e) => e.taskId === ids[0])).toHaveLength(1);
    expect(await h.rt.db.mergeTrain.list({ projectId: 'proj' })).toEqual([]);
    // A pass of the daemon's loop may still be letting go of the lock.
    await waitFor(async () => (await h.rt.db.mergeTrain.lockHolder('project:proj', Date.now())) === null, 60_000, 'the lock to be free');
  });

  it('Approve queues tasks that need approval: two approved tasks land one after the other, each checked on the updated base', async () => {
    // The check leaves a trace in the workspace it ran in: the commit it checked.
    await setUp({ check_command: 'git rev-parse HEAD >> .git/aq-checked' });
    h.adapter.fallback = async (req) => {
      await editLine(req, req.prompt.includes('Do: First') ? 5 : 25);
      return { summary: 'edited its line' };
    };
    await h.start();
    const ids = [await h.task('First', { requiresApproval: true }), await h.task('Second', { requiresApproval: true })];
    for (const id of ids) await h.waitStatus(id, 'AWAITING_APPROVAL');
    // Someone else lands in this train right now: both approvals queue behind it.
    const train = 'project:proj';
    expect(await h.rt.db.mergeTrain.acquireLock(train, 'another process', 600_000, Date.now())).toBe(true);
    expect(await h.rt.exec('approve_task', { task_id: ids[0] })).toEqual({
      approved: ids[0],
      title: 'First',
      queued_for_landing: true,
      status: 'AWAITING_APPROVAL',
      landed: false,
      landing: 'Queued for landing: #1 in the merge train.',
      merge_queue: { train, place: 1, state: 'waiting', since: expect.any(String), tries: 0, last_outcome: null },
    });
    expect(await h.rt.exec('approve_task', { task_id: ids[1] })).toMatchObject({
      landing: 'Queued for landing: #2 in the merge train.',
      merge_queue: { place: 2, state: 'waiting' },
    });
    expect(await h.rt.exec('approve_task', { task_id: ids[0] })).toEqual({
      error: `Task '${ids[0]}' is already approved and queued for landing (#1 in the merge train, waiting); it lands when its turn comes, so there is nothing more to approve.`,
    });
    expect(h.eventsOf('landing_queued').map((e) => [e.taskId, e.payload.place])).toEqual([
      [ids[0], 1],
      [ids[1], 2],
    ]);
    expect(h.eventsOf('task_completed')).toEqual([]);

    await h.rt.db.mergeTrain.releaseLock(train, 'another process');
    for (const id of ids) await h.waitStatus(id, 'COMPLETED', 180_000);
    // The status moves before its event is stored: wait for the second completion's event too.
    await waitFor(async () => h.eventsOf('task_completed').length === 2, 60_000, 'both task_completed events');
    expect(h.eventsOf('landed').map((e) => e.taskId)).toEqual(ids);
    expect(h.eventsOf('task_completed').map((e) => [e.taskId, e.payload.merged, e.payload.approved])).toEqual([
      [ids[0], true, true],
      [ids[1], true, true],
    ]);
    // One landing after the other: the second started once the first had landed.
    const secondStarted = h.events.findIndex((e) => e.type === 'landing_started' && e.taskId === ids[1]);
    expect(h.events.findIndex((e) => e.type === 'landed' && e.taskId === ids[0])).toBeLessThan(secondStarted);
    // The check ran once for each, in the workspace it landed from; the second on its branch brought up to the first's landing.
    const checked = new Map<string, { sha: string; cwd: string }>();
    const paths = new Set<string>();
    for (const id of ids) paths.add((await h.rt.db.workspaces.get((await h.rt.db.tasks.get(id))!.workspaceId!))!.path);
    for (const cwd of paths) {
      for (const sha of (await readFile(path.join(cwd, '.git', 'aq-checked'), 'utf8')).trim().split('\n')) {
        const task = (await gitOut(cwd, 'log', '-1', '--format=%(trailers:key=Task-Id,valueonly)', sha)).trim();
        expect(checked.has(task)).toBe(false);
        checked.set(task, { sha, cwd });
      }
    }
    expect([...checked.keys()].sort()).toEqual([...ids].sort());
    const firstOnMain = (await gitOut(h.origin, 'log', 'main', '--fixed-strings', `--grep=Task-Id: ${ids[0]}`, '--format=%H')).trim();
    const second = checked.get(ids[1])!;
    await gitOut(second.cwd, 'merge-base', '--is-ancestor', firstOnMain, second.sha);
    expect(await commitsOnMain(h.origin, ids[0])).toBe(1);
    expect(await commitsOnMain(h.origin, ids[1])).toBe(1);
    expect(await h.rt.db.mergeTrain.list({ projectId: 'proj' })).toEqual([]);
  });

  it('BLOCKs a task whose check stays red after landing_tries, leaving main as it was', async () => {
    await setUp({ check_command: 'test ! -f bad.txt', landing_tries: 2 });
    h.adapter.fallback = async (req) => {
      await writeIn(req, 'bad.txt', `still bad ${Date.now()}\n`);
      return { summary: 'wrote bad.txt' };
    };
    const before = await gitOut(h.origin, 'rev-parse', 'main');
    await h.start();
    const id = await h.task('Never green');
    await h.waitStatus(id, 'BLOCKED', 180_000);
    const blocked = await waitFor(async () => h.eventsOf('task_blocked', id)[0]);
    expect(String(blocked.payload.reason)).toMatch(/could not land after 2 tries \(the project's landing_tries\)/);
    expect(h.eventsOf('landing_sent_back', id)).toHaveLength(1);
    expect(h.adapter.attempts.get(id)).toBe(2);
    expect(await gitOut(h.origin, 'rev-parse', 'main')).toBe(before);
    expect(await h.rt.db.mergeTrain.list({ projectId: 'proj' })).toEqual([]);
  });
  it('a message to a task in the middle of its landing waits for it: the work lands, then the message runs as its follow-up', async () => {
    // The check holds the landing until the test opens the gate.
    await setUp({ check_command: 'while [ ! -f .git/aq-go ]; do sleep 0.05; done' });
    const prompts: string[] = [];
    h.adapter.fallback = async (req, attempt) => {
      prompts.push(req.prompt);
      await writeIn(req, attempt === 1 ? 'feature.txt' : 'follow-up.txt', `${req.taskId} ${attempt}\n`);
      return { summary: `run ${attempt}` };
    };
    await h.start();
    const id = await h.task('Land, then follow up');
    await waitFor(async () => (await h.rt.db.mergeTrain.get(id))?.state === 'checking', 60_000, 'the landing to reach its check');

    const sent = await h.rt.exec('message_task', { task_id: id, text: 'Also add a follow-up file.', author: 'Ada' });
    expect(sent).toEqual({
      task_id: id,
      title: 'Land, then follow up',
      delivery: 'after_landing',
      message_id: expect.any(Number),
      status: 'AWAITING_APPROVAL',
      landing: 'It lands first (#1 in the merge train); your message then runs as its follow-up, on top of the landed work.',
    });
    // Still in its train, its landing untouched, no second run.
    expect(await h.status(id)).toBe('AWAITING_APPROVAL');
    expect((await h.rt.db.mergeTrain.get(id))?.state).toBe('checking');
    expect(h.adapter.calls).toHaveLength(1);

    const task = await h.rt.db.tasks.get(id);
    const workspace = await h.rt.db.workspaces.get(task?.workspaceId as string);
    await writeFile(path.join(workspace?.path as string, '.git', 'aq-go'), '');
    await waitFor(async () => h.eventsOf('landed', id).length === 2, 120_000, 'the landing and then the follow-up’s landing');
    await h.waitStatus(id, 'COMPLETED');

    // The follow-up ran once, after the first landing, with the message as its instruction.
    expect(prompts).toHaveLength(2);
    expect(prompts[1]).toContain('Ada: Also add a follow-up file.');
    const order = h.events.filter((e) => e.taskId === id && ['landed', 'task_follow_up_queued'].includes(e.type)).map((e) => e.type);
    expect(order).toEqual(['landed', 'task_follow_up_queued', 'landed']);
    expect(await gitOut(h.origin, 'show', 'main:feature.txt')).toBe(`${id} 1`);
    expect(await gitOut(h.origin, 'show', 'main:follow-up.txt')).toBe(`${id} 2`);
    expect(await commitsOnMain(h.origin, id)).toBe(2);
  });

  it('origin moving during a landing (someone pushed while its check ran): the push is refused, and the landing fetches and lands on top', async () => {
    await setUp({ check_command: 'while [ ! -f .git/aq-go ]; do sleep 0.05; done' });
    h.adapter.fallback = async (req) => {
      await writeIn(req, 'feature.txt', `${req.taskId}\n`);
      return { summary: 'wrote feature.txt' };
    };
    await h.start();
    const id = await h.task('Land after a push');
    await waitFor(async () => (await h.rt.db.mergeTrain.get(id))?.state === 'checking', 60_000, 'the landing to reach its check');

    // A person pushes to main from a clone of their own while the check holds the landing.
    const person = path.join(h.rt.home, 'person');
    await gitOut(h.rt.home, 'clone', '-q', h.origin, person);
    const pushed = await commitFile(person, 'person.txt', 'pushed meanwhile\n', 'a person’s commit');
    await gitOut(person, 'push', '-q', 'origin', 'main');

    const task = await h.rt.db.tasks.get(id);
    const workspace = await h.rt.db.workspaces.get(task?.workspaceId as string);
    await writeFile(path.join(workspace?.path as string, '.git', 'aq-go'), '');
    await h.waitStatus(id, 'COMPLETED');

    expect(h.eventsOf('landed', id)).toHaveLength(1);
    expect(await gitOut(h.origin, 'show', 'main:feature.txt')).toBe(id);
    expect(await gitOut(h.origin, 'show', 'main:person.txt')).toBe('pushed meanwhile');
    await gitOut(h.origin, 'merge-base', '--is-ancestor', pushed, 'main');
    expect(await commitsOnMain(h.origin, id)).toBe(1);
  });

  it("the check command cannot read the app's own files in AQ_HOME, and reads the rest of it", async () => {
    // The check has a /tmp of its own, so this AQ_HOME is elsewhere, as the default one is.
    const outside = await makeTempDirOutsideTmp('aq-home-');
    cleanups.push(outside.cleanup);
    h = await makeHarness({ env: { AQ_HOME: outside.dir } });
    const appFiles = await writeAppFiles(h.rt.config, 'app-file-secret');
    cleanups.push(appFiles.close);
    // The socket is left out: cat fails on one that is not hidden too.
    const files = [appFiles.ordinary, ...appFiles.hidden];
    // What the check read is left in the workspace it ran in; the check itself stays green.
    await landOneTaskThrough(`for f in ${files.join(' ')}; do echo "== $f"; cat "$f" 2>&1; done > .git/aq-peek; true`, 'peek.txt');
    const peeked = await readFile(path.join(h.workspace, '.git', 'aq-peek'), 'utf8');
    expect(peeked).toContain(`== ${files[0]}\n${ORDINARY_TEXT}`);
    for (const hidden of files.slice(1)) expect(peeked).toContain(`== ${hidden}\ncat: ${hidden}:`);
    expect(peeked).not.toContain('app-file-secret');
    expect(peeked).not.toContain('SQLite format 3');
  });

  it("a check sees none of the app's processes: neither their environment nor to signal them", async () => {
    h = await makeHarness();
    // The harness's daemon is this process: the check looks for it, and counts the processes it sees.
    const app = process.pid;
    const check = `{ ls /proc | grep -c '^[0-9]'; tr '\\0' '\\n' < /proc/${app}/environ; kill -0 ${app} && echo signalled; } > .git/aq-procs 2>&1; true`;
    await landOneTaskThrough(check, 'look.txt');
    const seen = await readFile(path.join(h.workspace, '.git', 'aq-procs'), 'utf8');
    // Only its own few: the sandbox's first process, the shell and the two commands counting.
    expect(Number(seen.split('\n')[0])).toBeLessThan(10);
    expect(seen).toContain(`/proc/${app}/environ`);
    expect(seen).not.toContain('PATH=');
    expect(seen).not.toContain('signalled');
  });

  it("a check cannot change git's settings or hooks in the workspace the app lands from", async () => {
    h = await makeHarness();
    const gitDir = path.join(h.workspace, '.git');
    const before = await readFile(path.join(gitDir, 'config'), 'utf8');
    const check = `{ printf '[core]\\n\\tfsmonitor = true\\n' >> .git/config; touch .git/hooks/post-merge; } 2> .git/aq-tried; true`;
    await landOneTaskThrough(check, 'fine.txt');
    expect(await readFile(path.join(gitDir, 'aq-tried'), 'utf8')).toMatch(/Read-only file system[\s\S]*Read-only file system/);
    expect(await readFile(path.join(gitDir, 'config'), 'utf8')).toBe(before);
    expect(existsSync(path.join(gitDir, 'hooks', 'post-merge'))).toBe(false);
    expect(await gitOut(h.origin, 'show', 'main:fine.txt')).toBe('fine');
  });
});
