// @scratch-on-disk: the real Claude Code CLI runs shell commands in a sandbox with a /dev of its own, where a workspace in /dev/shm is not.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, realpath, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { ClaudeCodeAdapter, unsandboxedRefusal, type ClaudeCodeOptions } from '../../../src/agents/claude-code';
import { everyWriteRefused, missingSandboxPrograms } from '../../../src/agents/confinement';
import { unixService } from '../../support/answering-server';
import { FakeAnthropic, type ToolResultBlock } from '../../support/fake-anthropic';
import { makeTempDir } from '../../support/tmp';

jest.setTimeout(90_000);

const execFileAsync = promisify(execFile);

const SECRET = 'BEGIN FAKE PRIVATE KEY do-not-leak';

/** The text of a tool_result, whatever shape the CLI gave it. */
function textOf(block: ToolResultBlock): string {
  return typeof block.content === 'string' ? block.content : JSON.stringify(block.content);
}

/**
 * The real Claude Code CLI against the loopback Messages API, with a scripted model that tries to
 * leave its workspace: every attempt is refused, reported, and the run goes on to finish.
 */
describe('agents are confined to their workspace (real Claude Code CLI)', () => {
  let fake: FakeAnthropic;
  let tmp: { dir: string; cleanup: () => Promise<void> };
  let workspace: string;
  let outside: string;
  let home: string;

  beforeAll(() => {
    // CI and the README install these; without them the sandbox cannot be tested at all.
    expect(missingSandboxPrograms()).toEqual([]);
  });

  beforeEach(async () => {
    fake = await FakeAnthropic.start();
    tmp = await makeTempDir('aq-confine-');
    workspace = path.join(tmp.dir, 'workspace');
    outside = path.join(tmp.dir, 'outside');
    home = path.join(tmp.dir, 'home');
    await mkdir(workspace, { recursive: true });
    await mkdir(outside, { recursive: true });
    await mkdir(path.join(home, '.ssh'), { recursive: true });
    await mkdir(path.join(home, 'config'), { recursive: true });
    await writeFile(path.join(home, '.ssh', 'id_rsa'), `${SECRET}\n`);
    await writeFile(path.join(outside, 'notes.txt'), `${SECRET}\n`);
    await symlink(outside, path.join(workspace, 'link-out'));
  });

  afterEach(async () => {
    await fake.close();
    await tmp.cleanup();
  });

  function adapter(options: Partial<ClaudeCodeOptions> = {}, env: Record<string, string> = {}): ClaudeCodeAdapter {
    return new ClaudeCodeAdapter({
      apiKey: 'sk-ant-fake',
      baseUrl: fake.url,
      maxRetries: 0,
      env: { HOME: home, CLAUDE_CONFIG_DIR: path.join(home, 'config'), ...env },
      tempRoot: path.join(home, 'tmp'),
      ...options,
    });
  }

  /** A PATH with git and a shell but neither bwrap nor socat. */
  async function pathWithoutSandbox(): Promise<string> {
    const bin = path.join(tmp.dir, 'bin');
    await mkdir(bin);
    for (const program of ['git', 'sh', 'bash', 'env', 'cat', 'ls']) {
      const found = (process.env.PATH ?? '')
        .split(':')
        .map((dir) => path.join(dir, program))
        .find((candidate) => existsSync(candidate));
      if (found) await symlink(found, path.join(bin, program));
    }
    return bin;
  }

  const request = (onProgress?: (line: string) => void) => ({
    taskId: 't-confine',
    prompt: 'Try everything.',
    cwd: workspace,
    signal: new AbortController().signal,
    onProgress,
  });

  it('refuses writes and reads outside (direct, ../, symlink, home secrets), reports them, and completes', async () => {
    fake.enqueue(
      { toolUses: [{ name: 'Write', input: { file_path: path.join(outside, 'escape.txt'), content: 'escaped' } }] },
      { toolUses: [{ name: 'Write', input: { file_path: path.join(workspace, '..', 'outside', 'dotdot.txt'), content: 'escaped' } }] },
      { toolUses: [{ name: 'Write', input: { file_path: path.join(workspace, 'link-out', 'via-link.txt'), content: 'escaped' } }] },
      { toolUses: [{ name: 'Read', input: { file_path: path.join(home, '.ssh', 'id_rsa') } }] },
      { toolUses: [{ name: 'Glob', input: { pattern: '../outside/*' } }] },
      {
        toolUses: [
          {
            name: 'Bash',
            input: { command: `cat ${path.join(home, '.ssh', 'id_rsa')}; echo escaped > ${path.join(outside, 'bash.txt')}` },
          },
        ],
      },
      {
        toolUses: [
          { name: 'Bash', input: { command: `echo escaped > ${path.join(outside, 'hatch.txt')}`, dangerouslyDisableSandbox: true } },
        ],
      },
      { toolUses: [{ name: 'Write', input: { file_path: path.join(workspace, 'inside.txt'), content: 'inside\n' } }] },
      { text: 'Wrote inside.txt.' },
    );
    const progress: string[] = [];
    const outcome = await adapter().run(request((line) => progress.push(line)));

    expect(outcome.status).toBe('completed');
    for (const name of ['escape.txt', 'dotdot.txt', 'via-link.txt', 'bash.txt', 'hatch.txt']) {
      expect(existsSync(path.join(outside, name))).toBe(false);
    }
    expect(await readFile(path.join(workspace, 'inside.txt'), 'utf8')).toBe('inside\n');

    // What the model was told for each call, in order: refusals, a sandboxed shell, then success.
    const results = fake.requests
      .map((r) => fake.toolResultsIn(r))
      .filter((r) => r.length > 0)
      .map((r) => r[0]);
    expect(results).toHaveLength(8);
    for (const refused of [results[0], results[1], results[2], results[3], results[4], results[6]]) {
      expect(refused.is_error).toBe(true);
    }
    expect(textOf(results[0])).toContain('outside this task');
    expect(textOf(results[2])).toContain('outside this task');
    expect(textOf(results[3])).toContain('outside this task');
    expect(textOf(results[5])).not.toContain(SECRET);
    expect(results[7].is_error).toBeFalsy();
    for (const block of results) expect(textOf(block)).not.toContain(SECRET);

    expect(outcome.summary).toContain('Wrote inside.txt.');
    expect(outcome.summary).toMatch(/Refused 6 attempts outside the workspace/);
    expect(outcome.summary).toContain(`Write ${path.join(outside, 'escape.txt')}`);
    expect(outcome.summary).toContain(`Read ${path.join(home, '.ssh', 'id_rsa')}`);
    expect(progress.filter((line) => line.startsWith('Refused'))).toHaveLength(6);
  });

  it("cannot change git's settings or hooks: file tools (also through a symlink) and the shell are refused", async () => {
    await execFileAsync('git', ['init', '-q', workspace]);
    const config = path.join(workspace, '.git', 'config');
    const before = await readFile(config, 'utf8');
    const planted = path.join(tmp.dir, 'planted');
    await symlink('.git/config', path.join(workspace, 'settings.cfg'));
    // The shell tries through a command the default policy allows.
    await writeFile(
      path.join(workspace, 'Makefile'),
      `test:\n\t-echo ${tmp.dir} > .git/commondir\n\t-printf '[core]\\n' >> .git/config\n\t-touch .git/hooks/post-merge\n`,
    );
    fake.enqueue(
      {
        toolUses: [
          { name: 'Write', input: { file_path: path.join(workspace, '.git', 'hooks', 'post-commit'), content: `touch ${planted}\n` } },
        ],
      },
      {
        toolUses: [
          {
            name: 'Edit',
            input: {
              file_path: path.join(workspace, 'settings.cfg'),
              old_string: '[core]',
              new_string: `[core]\n\tfsmonitor = touch ${planted}`,
            },
          },
        ],
      },
      { toolUses: [{ name: 'Bash', input: { command: 'make test' } }] },
      { toolUses: [{ name: 'Write', input: { file_path: path.join(workspace, 'inside.txt'), content: 'inside\n' } }] },
      { text: 'Wrote inside.txt.' },
    );
    const outcome = await adapter().run(request());

    expect(outcome.status).toBe('completed');
    expect(await readFile(config, 'utf8')).toBe(before);
    for (const hook of ['post-commit', 'post-merge']) expect(existsSync(path.join(workspace, '.git', 'hooks', hook))).toBe(false);
    // Claude Code may leave a commondir that names the folder itself; none points elsewhere.
    const common = await execFileAsync('git', ['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd: workspace });
    expect(common.stdout.trim()).toBe(path.join(await realpath(workspace), '.git'));
    expect(await readFile(path.join(workspace, 'inside.txt'), 'utf8')).toBe('inside\n');
    const results = fake.requests
      .map((r) => fake.toolResultsIn(r))
      .filter((r) => r.length > 0)
      .map((r) => r[0]);
    expect(results).toHaveLength(4);
    for (const refused of [results[0], results[1]]) {
      expect(refused.is_error).toBe(true);
      expect(textOf(refused)).toContain("in a repository's git folder");
    }
    // The shell's sandbox holds the same files read-only.
    expect(textOf(results[2]).match(/Read-only file system|Operation not permitted/g)).toHaveLength(3);
    expect(outcome.summary).toMatch(/Refused 2 attempts in a git folder:/);
    expect(outcome.summary).toContain(`Edit ${path.join(workspace, 'settings.cfg')}`);
  });

  it("the shell reads its own workspace but no other task's or project's", async () => {
    const root = path.join(tmp.dir, 'workspaces');
    const own = path.join(root, 'alpha', 'workspaces', 'ws-1');
    const others = [
      path.join(root, 'alpha', 'workspaces', 'ws-2', 'notes.txt'),
      path.join(root, 'beta', 'workspaces', 'ws-1', 'notes.txt'),
    ];
    for (const file of others) {
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, `${SECRET}\n`);
    }
    await mkdir(own, { recursive: true });
    await writeFile(path.join(own, 'mine.txt'), 'my own work\n');
    await writeFile(path.join(own, 'Makefile'), `test:\n${[...others, 'mine.txt'].map((f) => `\t-cat ${f}\n`).join('')}`);
    fake.enqueue({ toolUses: [{ name: 'Bash', input: { command: 'make test' } }] }, { text: 'Looked.' });
    const outcome = await adapter({ confinement: { workspacesRoot: root } }).run({ ...request(), cwd: own });

    expect(outcome.status).toBe('completed');
    const shell = textOf(fake.requests.flatMap((r) => fake.toolResultsIn(r))[0]);
    expect(shell).toContain('my own work');
    expect(shell).not.toContain(SECRET);
    for (const file of others) expect(shell).toContain(`cat: ${file}:`);
  });

  it("the shell cannot talk to a host service's Unix socket, which no network allowlist covers", async () => {
    // A service of the machine listening on a socket file the sandbox can see (as a container
    // engine's or an SSH agent's are): reaching it must be refused, not merely the file hidden.
    // (Claude Code's sandbox refuses the shell Unix sockets altogether.)
    const socket = path.join(outside, 'service.sock');
    const service = await unixService(socket, SECRET);
    try {
      // socat, which the sandbox itself needs, as the client.
      await writeFile(path.join(workspace, 'Makefile'), `test:\n\t-ls -l ${outside}\n\tsocat -u UNIX-CONNECT:${socket} STDOUT\n`);
      fake.enqueue({ toolUses: [{ name: 'Bash', input: { command: 'make test' } }] }, { text: 'Tried.' });
      const outcome = await adapter().run(request());

      expect(outcome.status).toBe('completed');
      const shell = textOf(fake.requests.flatMap((r) => fake.toolResultsIn(r))[0]);
      // The socket file is in sight; what it answers is not.
      expect(shell).toContain('service.sock');
      expect(shell).toMatch(/socat\[\d+\] E .*: Operation not permitted/);
      expect(shell).not.toContain(SECRET);
    } finally {
      await service.close();
    }
  });

  it('a run whose file tool write was refused but whose shell changed the workspace completes', async () => {
    await writeFile(path.join(workspace, 'Makefile'), 'test:\n\techo made > made.txt\n');
    for (const args of [
      ['init', '-q'],
      ['add', 'Makefile'],
      ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'make'],
    ]) {
      await execFileAsync('git', args, { cwd: workspace });
    }
    fake.enqueue(
      { toolUses: [{ name: 'Write', input: { file_path: path.join(outside, 'escape.txt'), content: 'escaped' } }] },
      { toolUses: [{ name: 'Bash', input: { command: 'make test' } }] },
      { text: 'Made it with make.' },
    );
    const outcome = await adapter().run(request());
    expect(await readFile(path.join(workspace, 'made.txt'), 'utf8')).toBe('made\n');
    expect(outcome.status).toBe('completed');
    expect(outcome.summary).toContain('Refused 1 attempt outside the workspace');
  });

  it('without bubblewrap and socat, refuses to run unless the policy allows unsandboxed shells', async () => {
    const PATH = await pathWithoutSandbox();
    expect(missingSandboxPrograms(PATH)).toEqual(['bwrap', 'socat']);
    const refused = await adapter({}, { PATH }).run(request());
    expect(refused).toMatchObject({ status: 'failed', errorMessage: unsandboxedRefusal(['bwrap', 'socat']) });
    expect(refused.errorMessage).toContain('apt-get install bubblewrap socat');
    expect(fake.requests).toHaveLength(0);

    fake.enqueue(
      { toolUses: [{ name: 'Write', input: { file_path: path.join(outside, 'escape.txt'), content: 'escaped' } }] },
      { text: 'Gave up.' },
    );
    const unsandboxed = await adapter({ confinement: { allowUnsandboxed: true } }, { PATH }).run(request());
    expect(existsSync(path.join(outside, 'escape.txt'))).toBe(false);
    expect(unsandboxed.summary).toContain('Refused 1 attempt outside the workspace');
    // Its only write was refused: the run changed nothing, and says so as a failure.
    expect(unsandboxed.status).toBe('failed');
    expect(unsandboxed.errorMessage).toBe(
      everyWriteRefused([{ tool: 'Write', path: path.join(outside, 'escape.txt'), reason: '', place: 'outside the workspace' }], workspace),
    );
  });
});
