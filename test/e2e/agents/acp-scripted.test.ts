import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AcpAdapter } from '../../../src/agents/acp';
import { acpOptions } from '../../../src/agents/acp-options';
import type { AgentProfile } from '../../../src/agents/profiles';
import { GitManager } from '../../../src/git/git-manager';
import { GitManagerTaskGit } from '../../../src/orchestrator/task-git';
import { ORDINARY_TEXT, writeAppFiles } from '../../support/app-files';
import { agentTempDir } from '../../../src/util/app-home-files';
import { scriptedProfile } from '../../support/acp/scripted-profile';
import { unixService } from '../../support/answering-server';
import { gitOut } from '../../support/git-fixtures';
import { makeTempDir, makeTempDirOutsideTmp } from '../../support/tmp';
import { makeHarness, waitFor, type Harness } from '../../integration/orchestrator/harness';

jest.setTimeout(120_000);

/**
 * The ACP backend drives a real ACP agent process (the scripted agent in test/support/acp, built on
 * the SDK's agent side) in bubblewrap, through the real orchestrator, git and database.
 */
describe('tasks on an ACP agent (scripted ACP agent over stdio)', () => {
  let h: Harness;
  let state: string;

  /** `wired`: the adapter's options as the app makes them from its configuration (acpOptions). */
  /** `appHome`: the app's AQ_HOME there instead of beside the harness in /tmp. */
  async function start(
    env: Record<string, string> = {},
    wired = false,
    ownFolders: string[] = [],
    inWorkspaceDir = false,
    appHome?: string,
  ): Promise<void> {
    h = await makeHarness({ agents: 0, inWorkspaceDir, ...(appHome && { env: { AQ_HOME: appHome } }) });
    state = path.join(h.rt.home, 'acp-state');
    const profile = scriptedProfile(state, 'scripted', env);
    await startAgent([{ ...profile, writable: [...profile.writable, ...ownFolders] }], wired);
  }

  /**
   * The daemon, with one ACP agent on the first of `profiles`; the adapter's options as the app
   * makes them (`wired`) or the test's own, on an app whose environment is `appEnv`.
   */
  async function startAgent(profiles: AgentProfile[], wired: boolean, appEnv?: NodeJS.ProcessEnv): Promise<void> {
    await h.rt.db.agents.create({ id: 'acp-1', name: 'ACP 1', type: 'acp', backend: 'acp', profile: profiles[0].name });
    const acp = new AcpAdapter(
      wired
        ? { ...acpOptions(h.rt.config, () => undefined), profiles }
        : { profiles, hiddenPaths: [h.rt.config.databasePath], tempRoot: path.join(h.rt.home, 'agent-tmp'), baseEnv: appEnv },
    );
    await h.start({ adapters: { acp }, git: new GitManagerTaskGit(new GitManager()), progressIntervalMs: 20 });
  }
  let cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await h.cleanup();
    for (const cleanup of cleanups.reverse()) await cleanup();
    cleanups = [];
  });

  const prompts = async () =>
    (await readFile(path.join(state, 'prompts.log'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { sessionId: string; text: string });
  const progress = (id: string) =>
    h
      .eventsOf('task_progress', id)
      .map((e) => String(e.payload.text))
      .join('\n');

  it('completes and merges: a file written in the workspace, progress, plan, usage and cost; a write outside is refused', async () => {
    await start();
    const id = await h.task('Say hello', {
      description: 'acp:plan Look around; Write the file\nacp:write hello.txt Hello from ACP\nacp:write ../escape.txt out',
    });
    await h.waitStatus(id, 'COMPLETED', 90_000);
    expect(await gitOut(h.origin, 'show', 'main:hello.txt')).toBe('Hello from ACP');
    expect(await h.rt.exec('get_task', { task_id: id })).toMatchObject({ backend: 'acp:scripted' });
    expect(existsSync(path.join(h.workspace, '..', 'escape.txt'))).toBe(false);
    const result = await h.rt.db.taskResults.latest(id);
    expect(result).toMatchObject({ result: 'COMPLETED', tokensUsed: 1500, costUsd: 0.25, sessionId: expect.stringMatching(/^scripted-/) });
    expect(result?.summary).toMatch(
      /^Working in .*Done: wrote hello\.txt; could not write \.\.\/escape\.txt: .*outside this task's workspace/,
    );
    const lines = progress(id);
    expect(lines).toContain('Plan · Look around → Write the file');
    expect(lines).toContain('Write hello.txt');
    expect(lines).toMatch(/Refused · Write · .*escape\.txt \(outside the workspace\)/);
  });

  it('a thread reply after completion loads the same session and reaches it; its cost is the new turn only', async () => {
    await start();
    const id = await h.task('Look around', { description: 'Nothing to change yet.' });
    await h.waitStatus(id, 'COMPLETED', 90_000);
    const first = await h.rt.db.taskResults.latest(id);
    expect(await h.rt.exec('message_task', { task_id: id, text: 'FOLLOW-UP\nacp:write later.txt later' })).toMatchObject({
      delivery: 'follow_up',
      resumes_session: true,
    });
    await waitFor(async () => h.eventsOf('task_completed', id).length === 2, 90_000, 'the follow-up to complete');
    const [, second] = await prompts();
    expect(second.sessionId).toBe(first?.sessionId);
    expect(second.text).toContain('FOLLOW-UP\nacp:write later.txt later');
    const result = await h.rt.db.taskResults.latest(id);
    expect(result).toMatchObject({ sessionId: first?.sessionId, costUsd: 0.25 });
    expect(result?.summary).toContain('I have heard 2 prompts in this session.');
    expect(result?.summary).not.toContain('An answer from before');
    expect(await gitOut(h.origin, 'show', 'main:later.txt')).toBe('later');
  });

  it('an agent that cannot load sessions starts a new one with the task, the last report and the reply, and says so', async () => {
    await start({ ACP_SCRIPTED_NO_LOAD: '1' });
    const id = await h.task('Look around', { description: 'ORIGINAL TASK TEXT' });
    await h.waitStatus(id, 'COMPLETED', 90_000);
    await h.rt.exec('message_task', { task_id: id, text: 'SECOND THOUGHTS' });
    await waitFor(async () => h.eventsOf('task_completed', id).length === 2, 90_000, 'the follow-up to complete');
    const [first, second] = await prompts();
    expect(second.sessionId).not.toBe(first.sessionId);
    expect(second.text).toContain('ORIGINAL TASK TEXT');
    expect(second.text).toContain('## What the previous run reported');
    expect(second.text).toContain('SECOND THOUGHTS');
    expect(progress(id)).toContain('scripted cannot load an earlier session; it starts a new one with the task and the thread so far.');
  });

  it('a usage limit with a reset time pauses the task until that reset', async () => {
    await start();
    const reset = new Date(Math.ceil(Date.now() / 1000) * 1000 + 3 * 3600_000);
    const id = await h.task('Limited', { description: `acp:limit ${reset.toISOString()}` });
    await h.waitStatus(id, 'PAUSED', 90_000);
    const task = await h.rt.db.tasks.get(id);
    expect(task?.resumeAfter).toEqual(reset);
    expect(task?.pauseReason).toMatch(/^Usage limit until .* UTC, when the API says it resets; .*You've hit your usage limit/);
  });

  it('Stop sends session/cancel and the run ends as stopped; unreported usage stays unknown', async () => {
    await start();
    const id = await h.task('Work forever', { description: 'acp:no-usage\nacp:wait' });
    await waitFor(async () => progress(id).includes('Waiting until I am cancelled.'), 90_000, 'the agent to be working');
    await h.rt.exec('stop_task', { task_id: id });
    await waitFor(async () => (await h.rt.db.taskResults.latest(id))?.result === 'STOPPED', 60_000, 'the stopped result');
    const cancels = (await readFile(path.join(state, 'cancels.log'), 'utf8')).trim().split('\n');
    expect(cancels).toEqual([(await prompts())[0].sessionId]);
    expect(await h.rt.db.taskResults.latest(id)).toMatchObject({ errorMessage: 'Agent was stopped.', tokensUsed: null, costUsd: null });
  });

  it("cannot change git's settings or hooks, through the client's file methods nor from its own process", async () => {
    await start();
    const gitDir = path.join(h.workspace, '.git');
    const before = await readFile(path.join(gitDir, 'config'), 'utf8');
    const id = await h.task('Tamper', {
      description: [
        'acp:write .git/hooks/post-commit touch planted',
        'acp:put .git/config [core]',
        'acp:put .git/hooks/post-merge touch planted',
        'acp:write hello.txt Hello',
      ].join('\n'),
    });
    await h
      .waitStatus(id, 'COMPLETED', 10_000)
      .catch(() => console.log(JSON.stringify(h.events.map((e) => [e.type, e.payload])).slice(0, 4000)));
    const summary = (await h.rt.db.taskResults.latest(id))?.summary ?? '';
    expect(summary).toMatch(/could not write \.git\/hooks\/post-commit: .*in a repository's git folder/);
    expect(summary).toContain('could not put .git/config (EROFS)');
    expect(summary).toContain('could not put .git/hooks/post-merge (EROFS)');
    expect(summary).toContain('wrote hello.txt');
    expect(progress(id)).toContain(`Refused · Write · ${path.join(h.workspace, '.git', 'hooks', 'post-commit')} (in a git folder)`);
    expect(await readFile(path.join(gitDir, 'config'), 'utf8')).toBe(before);
    for (const hook of ['post-commit', 'post-merge']) expect(existsSync(path.join(gitDir, 'hooks', hook))).toBe(false);
    expect(await gitOut(h.origin, 'show', 'main:hello.txt')).toBe('Hello');
  });

  it("a commondir planted in the git folder stops the app's git there: the landing goes back saying what to remove", async () => {
    await start();
    const elsewhere = path.join(h.rt.home, 'elsewhere');
    const id = await h.task('Plant', { description: `acp:put .git/commondir ${elsewhere}\nacp:write hello.txt Hello` });
    const sentBack = await waitFor(async () => h.eventsOf('landing_sent_back', id)[0], 60_000, 'the landing sent back');
    expect(String(sentBack.payload.reason)).toBe(
      `Landing stopped: git will not run in ${h.workspace}: ${path.join(h.workspace, '.git', 'commondir')} would make it read its settings from another folder, and only a linked worktree has one. Look at it and remove it.`,
    );
    expect(await gitOut(h.origin, 'ls-tree', '--name-only', 'main')).not.toContain('hello.txt');
  });

  it("an alternates file planted in the git folder stops the app's git there: no other repository's objects reach the push", async () => {
    await start();
    // Another project's objects, which the agent cannot read itself but the app's git could.
    const other = path.join(h.rt.config.workspaceDir, 'beta', 'workspaces', 'ws1', '.git', 'objects');
    const id = await h.task('Borrow', { description: `acp:put .git/objects/info/alternates ${other}\nacp:write hello.txt Hello` });
    const sentBack = await waitFor(async () => h.eventsOf('landing_sent_back', id)[0], 60_000, 'the landing sent back');
    expect(String(sentBack.payload.reason)).toBe(
      `Landing stopped: git will not run in ${h.workspace}: ${path.join(h.workspace, '.git', 'objects', 'info', 'alternates')} would make it take objects from other repositories, and the app never makes one. Look at it; if the repository is your own clone made with --reference, run "git repack -a -d" there, then remove it.`,
    );
    expect(await gitOut(h.origin, 'ls-tree', '--name-only', 'main')).not.toContain('hello.txt');
  });

  it("reads its own workspace but no other task's or project's, and neither does the landing check", async () => {
    await start({}, true, [], true);
    const root = h.rt.config.workspaceDir;
    const others = [
      path.join(root, 'proj', 'workspaces', 'ws-other', 'notes.txt'),
      path.join(root, 'beta', 'workspaces', 'ws1', 'notes.txt'),
    ];
    for (const file of others) {
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, 'work of another task\n');
    }
    const check = `cat ${others.join(' ')} > .git/aq-check-peek 2>&1; true`;
    expect(await h.rt.exec('edit_project', { project_id: 'proj', check_command: check })).toMatchObject({ updated: 'proj' });
    const own = path.join(h.workspace, 'README.md');
    const id = await h.task('Peek', {
      description: [...others, own]
        .map((file) => `acp:peek ${file}`)
        .concat('acp:write hello.txt Hello')
        .join('\n'),
    });
    await h.waitStatus(id, 'COMPLETED', 90_000);
    const summary = (await h.rt.db.taskResults.latest(id))?.summary ?? '';
    for (const file of others) expect(summary).toContain(`peeked ${file}: unreadable (ENOENT)`);
    expect(summary).toContain(`peeked ${own}: # Project`);
    const checked = await readFile(path.join(h.workspace, '.git', 'aq-check-peek'), 'utf8');
    expect(checked).toContain('No such file or directory');
    expect(checked).not.toContain('work of another task');
  });

  it('a run whose client write was refused but which changed the workspace itself completes and lands', async () => {
    await start();
    const id = await h.task('Make', { description: 'acp:write ../escape.txt out\nacp:put made.txt made by the agent' });
    await h.waitStatus(id, 'COMPLETED', 90_000);
    expect(await gitOut(h.origin, 'show', 'main:made.txt')).toBe('made by the agent');
  });

  it("the whole agent process cannot read the app's own files, other agents' logins and temp folders nor the machine's /tmp, and reads the rest, its own logins (a folder and a file) and TMPDIR", async () => {
    // The agent's home holds its own login (in a folder its profile makes writable) and Claude
    // Code's. It and the app's home lie outside /tmp, as they do on a machine: the agent's /tmp is
    // its own, so what is under the machine's /tmp would be out of its sight anyway.
    const agentHome = await makeTempDirOutsideTmp('aq-agent-home-');
    const appHome = await makeTempDirOutsideTmp('aq-app-home-');
    // Whatever else lies in the machine's /tmp: a 0700 folder is no fence between one user's processes.
    const machineTmp = await makeTempDir('aq-elsewhere-');
    cleanups.push(agentHome.cleanup, appHome.cleanup, machineTmp.cleanup);
    const inMachineTmp = path.join(machineTmp.dir, 'draft.txt');
    await writeFile(inMachineTmp, 'another program was here\n');
    const ownLogin = path.join(agentHome.dir, '.codex', 'auth.json');
    const otherLogin = path.join(agentHome.dir, '.claude', '.credentials.json');
    // A login kept in a file, as Claude Code keeps ~/.claude.json: listed in the profile, it is its own too.
    const ownFile = path.join(agentHome.dir, '.claude.json');
    for (const file of [ownLogin, otherLogin, ownFile]) {
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, 'a login\n');
    }
    await start({ HOME: agentHome.dir }, true, ['~/.codex', '~/.claude.json'], false, appHome.dir);
    const appFiles = await writeAppFiles(h.rt.config, 'app-file-secret');
    try {
      const id = await h.task('Peek', {
        description: [appFiles.ordinary, ...appFiles.hidden, appFiles.socket, ownLogin, otherLogin, ownFile, inMachineTmp]
          .map((file) => `acp:peek ${file}`)
          .concat('acp:put $TMPDIR/scratch.txt kept for later', 'acp:peek $TMPDIR/scratch.txt')
          .join('\n'),
      });
      await h.waitStatus(id, 'COMPLETED', 90_000);
      const summary = (await h.rt.db.taskResults.latest(id))?.summary ?? '';
      expect(summary).toContain(`peeked ${appFiles.ordinary}: ${ORDINARY_TEXT}`);
      // A hidden file is a device node the agent may not open; the log's folder is an empty one.
      const [profiles, log, database, credential, otherAgentTemp] = appFiles.hidden;
      expect(summary).toContain(`peeked ${profiles}: unreadable (EACCES)`);
      expect(summary).toContain(`peeked ${log}: unreadable (ENOENT)`);
      expect(summary).toContain(`peeked ${database}: unreadable (EACCES)`);
      expect(summary).toContain(`peeked ${credential}: unreadable (ENOENT)`);
      expect(summary).toContain(`peeked ${otherAgentTemp}: unreadable (ENOENT)`);
      expect(summary).toContain(`peeked ${appFiles.socket}: unreadable (EACCES)`);
      expect(summary).toContain(`peeked ${ownLogin}: a login`);
      expect(summary).toContain(`peeked ${otherLogin}: unreadable (EACCES)`);
      expect(summary).toContain(`peeked ${ownFile}: a login`);
      expect(summary).toContain(`peeked ${inMachineTmp}: unreadable (ENOENT)`);
      // Its own temporary folder lies among the other agents', and it alone comes back.
      const ownTemp = path.join(agentTempDir(appHome.dir), 'aq-acp-');
      expect(summary).toMatch(new RegExp(`peeked ${ownTemp}[^/]+/scratch\\.txt: kept for later`));
    } finally {
      await appFiles.close();
    }
  });

  /** A harness of its own, running `profile`'s agent on an app whose own environment is `appEnv`. */
  async function startProfile(profile: AgentProfile, appEnv?: NodeJS.ProcessEnv): Promise<void> {
    h = await makeHarness({ agents: 0 });
    await startAgent([profile], false, appEnv);
  }

  it("the whole agent process cannot reach a host service's Unix socket, which no network rule covers", async () => {
    // A socket file of the machine's (a container engine's, a session bus's), outside /tmp so that
    // the agent sees it: the agent process and what it starts may make no Unix socket at all.
    const machine = await makeTempDirOutsideTmp('aq-machine-');
    cleanups.push(machine.cleanup);
    const socket = path.join(machine.dir, 'service.sock');
    cleanups.push((await unixService(socket, 'host-service-answer')).close);
    await start();
    const id = await h.task('Connect', { description: `acp:peek ${socket}\nacp:connect ${socket}\nacp:write hello.txt Hello` });
    await h.waitStatus(id, 'COMPLETED', 90_000);
    const summary = (await h.rt.db.taskResults.latest(id))?.summary ?? '';
    // In sight (a socket cannot be read as a file), and refused.
    expect(summary).toContain(`peeked ${socket}: unreadable (ENXIO)`);
    expect(summary).toContain(`connected to ${socket}: refused (EPERM)`);
    expect(summary).not.toContain('host-service-answer');
  });

  it("gets none of the app's own Node options nor the npm script that started it, so a preload of the app's stops no agent", async () => {
    // The app as `npm start` runs it, with a tracing preload of the operator's, out of the agent's sight.
    const install = await makeTempDir('aq-app-install-');
    cleanups.push(install.cleanup);
    const tracing = path.join(install.dir, 'tracing.js');
    await writeFile(tracing, '');
    const appEnv = {
      ...process.env,
      NODE_OPTIONS: `--require ${tracing}`,
      NODE_ENV: 'production',
      INIT_CWD: install.dir,
      npm_lifecycle_event: 'start',
      npm_package_json: path.join(install.dir, 'package.json'),
    };
    const stateDir = await makeTempDir('aq-acp-state-');
    cleanups.push(stateDir.cleanup);
    await startProfile(scriptedProfile(stateDir.dir), appEnv);
    const id = await h.task('Show your environment', { description: 'acp:peek /proc/self/environ' });
    await h.waitStatus(id, 'COMPLETED', 90_000);
    const summary = (await h.rt.db.taskResults.latest(id))?.summary ?? '';
    expect(summary).toContain('peeked /proc/self/environ:');
    for (const name of ['NODE_OPTIONS', 'NODE_ENV', 'INIT_CWD', 'npm_lifecycle_event', 'npm_package_json'])
      expect(summary).not.toContain(`${name}=`);
  });

  it('an agent that crashes as it starts fails its task with its error, not the last line Node prints', async () => {
    await startProfile({
      name: 'crashing',
      command: process.execPath,
      args: ['-e', "throw new Error('no settings file at ~/.agent/settings.json')"],
      env: {},
      sandbox: true,
      writable: [],
    });
    const id = await h.task('Start', { description: 'Anything.' });
    await waitFor(async () => h.eventsOf('task_failed', id).length > 0, 60_000, 'the run to fail');
    const error = String(h.eventsOf('task_failed', id)[0].payload.error);
    expect(error).toContain('Error: no settings file at ~/.agent/settings.json');
    expect(error).not.toMatch(/Node\.js v\d/);
  });

  it("a key in an agent profile's env is redacted from what the agent reports", async () => {
    // The profile as an admin writes it, read by the app's configuration.
    const dir = await makeTempDir('aq-profiles-');
    cleanups.push(dir.cleanup);
    state = path.join(dir.dir, 'acp-state');
    const file = path.join(dir.dir, 'agent-profiles.json');
    await writeFile(
      file,
      JSON.stringify({ profiles: [scriptedProfile(state, 'scripted', { VENDOR_API_KEY: 'vendor-key-must-not-leak-0001' })] }),
    );
    h = await makeHarness({ agents: 0, env: { AQ_AGENT_PROFILES: file } });
    await h.rt.db.agents.create({ id: 'acp-1', name: 'ACP 1', type: 'acp', backend: 'acp', profile: 'scripted' });
    await h.start({
      adapters: { acp: new AcpAdapter(acpOptions(h.rt.config, () => undefined)) },
      git: new GitManagerTaskGit(new GitManager()),
      progressIntervalMs: 20,
    });
    // Told to show its environment, the agent reads it and reports it.
    const id = await h.task('Show your environment', { description: 'acp:peek /proc/self/environ' });
    await h.waitStatus(id, 'COMPLETED', 90_000);
    const summary = (await h.rt.db.taskResults.latest(id))?.summary ?? '';
    expect(summary).toContain('VENDOR_API_KEY=[redacted]');
    expect(summary).not.toContain('vendor-key-must-not-leak-0001');
    expect(JSON.stringify(h.events.filter((e) => e.taskId === id))).not.toContain('vendor-key-must-not-leak-0001');
  });
});
