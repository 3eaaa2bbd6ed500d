import { spawn } from 'node:child_process';
import { chmod, lstat, mkdir, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { loadConfig } from '../../../src/config';
import { CONFIG_VARIABLES, configDigest } from '../../../src/config-digest';
import { FakeSlack } from '../../support/fake-slack';
import { startTestApp, type TestApp } from '../../support/slack-app';
import { makeTempDir } from '../../support/tmp';
import { freePort } from '../../support/free-port';

const ROOT = path.join(__dirname, '..', '..', '..');
/** `aq` as npm installs it: the shell script that asks the app's socket before anything else. */
const AQ = path.join(ROOT, 'bin', 'aq');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** A program as its own process in the app's folder, with only `env` (and PATH). */
function spawned(command: string, args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: { PATH: process.env.PATH ?? '', ...env },
      cwd: process.cwd(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** The real `aq` as its own process; `inProcess` turns the socket off. */
function aq(env: Record<string, string>, args: string[], options: { inProcess?: boolean } = {}): Promise<Run> {
  return spawned(AQ, args, { ...env, ...(options.inProcess ? { AQ_NO_SOCKET: '1' } : {}) });
}

/** One raw exchange with the socket: what the app replies to `payload`, until it closes. */
function exchange(file: string, payload: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(file);
    let reply = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (reply += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(reply));
    socket.end(payload);
  });
}

/** The environment the test app was configured from, which a CLI on its AQ_HOME shares (.env in real use). */
function sharedEnv(app: TestApp): Record<string, string> {
  return { AQ_HOME: app.home, SLACK_BOT_TOKEN: 'xoxb-test', SLACK_SIGNING_SECRET: app.signingSecret, SLACK_API_URL: app.slack.apiUrl };
}

describe('aq exec through the running app (aq.sock)', () => {
  let app: TestApp;
  let env: Record<string, string>;

  beforeAll(async () => {
    app = await startTestApp();
    env = sharedEnv(app);
  });
  afterAll(async () => {
    await app?.stop();
  });

  const served = () => app.started.appSocket!.served();

  it('answers get_status through the socket, byte for byte as in-process', async () => {
    expect(app.started.appSocket?.path).toBe(path.join(app.home, 'aq.sock'));
    const before = served();
    const fast = await aq(env, ['exec', 'get_status']);
    expect(served()).toBe(before + 1);
    const slow = await aq(env, ['exec', 'get_status'], { inProcess: true });
    expect(served()).toBe(before + 1);
    expect(fast).toEqual(slow);
    expect(fast.code).toBe(0);
  });

  it('runs writes through the socket, with the same answers, errors and exit codes', async () => {
    const before = served();
    const created = await aq(env, ['exec', 'create_project', '{"name": "Demo"}']);
    expect(created).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(created.stdout)).toMatchObject({ created: 'demo' });
    for (const args of [
      ['exec', 'get_project', '{"project_id": "demo"}'],
      ['exec', 'create_project', '{"name": "Demo"}'],
      ['exec', 'create_project', '{"name": '],
      ['exec', 'no_such_command'],
    ]) {
      const fast = await aq(env, args);
      const slow = await aq(env, args, { inProcess: true });
      expect(fast).toEqual(slow);
    }
    expect(served()).toBe(before + 5);
  });

  it('is the user’s alone: the socket file is 0600', async () => {
    const stat = await lstat(app.started.appSocket!.path);
    expect(stat.isSocket()).toBe(true);
    expect(stat.mode & 0o777).toBe(0o600);
  });

  it('refuses malformed, oversized and foreign requests, and keeps answering', async () => {
    const file = app.started.appSocket!.path;
    const before = served();
    expect(JSON.parse(await exchange(file, 'not json\n'))).toMatchObject({ served: false });
    expect(JSON.parse(await exchange(file, '{"argv": 3}\n'))).toMatchObject({ served: false });
    expect(JSON.parse(await exchange(file, Buffer.alloc(2 * 1024 * 1024, 'x')))).toMatchObject({ served: false });
    const request = {
      build: 'another build',
      argv: ['exec', 'get_status'],
      configDigest: app.started.runtime.config.envDigest,
      cwd: process.cwd(),
    };
    expect(JSON.parse(await exchange(file, `${JSON.stringify(request)}\n`))).toEqual({
      served: false,
      reason: 'the app runs another build of aq',
    });
    await exchange(file, '');
    expect(served()).toBe(before);
    expect(await aq(env, ['exec', 'get_status'])).toMatchObject({ code: 0 });
    expect(served()).toBe(before + 1);
  });

  it('answers while another connection is still sending its request', async () => {
    const stalled = net.connect(app.started.appSocket!.path);
    try {
      await new Promise((resolve) => stalled.once('connect', resolve));
      stalled.write('{"build": "');
      const before = served();
      expect(await aq(env, ['exec', 'get_status'])).toMatchObject({ code: 0 });
      expect(served()).toBe(before + 1);
    } finally {
      stalled.destroy();
    }
  });

  it('leaves a CLI configured otherwise to run in-process, with the same answer', async () => {
    // Another admin list, or another secret: the app sees neither, only that the digest differs.
    for (const other of [
      { ...env, AQ_ADMINS: 'U0ADMIN' },
      { ...env, SLACK_BOT_TOKEN: 'xoxb-another-workspace' },
    ]) {
      const before = served();
      const run = await aq(other, ['exec', 'get_project', '{"project_id": "demo"}']);
      expect(served()).toBe(before);
      expect(run).toEqual(await aq(other, ['exec', 'get_project', '{"project_id": "demo"}'], { inProcess: true }));
    }
  });

  it('answers a CLI whose environment differs only in what the configuration does not read', async () => {
    const before = served();
    const run = await aq({ ...env, EDITOR: 'vi', GITHUB_TOKEN: 'ghp_unrelated' }, ['exec', 'get_status']);
    expect(run.code).toBe(0);
    expect(served()).toBe(before + 1);
  });
});

describe('what aq tells the app about its configuration', () => {
  const SECRETS = {
    SLACK_BOT_TOKEN: 'xoxb-SECRET-1',
    SLACK_APP_TOKEN: 'xapp-SECRET-2',
    ANTHROPIC_API_KEY: 'sk-ant-SECRET-3',
    GITHUB_TOKEN: 'ghp_SECRET4',
  };

  it('is a digest of the variables its configuration reads, never its environment', async () => {
    const tmp = await makeTempDir('aq-digest-');
    const file = path.join(tmp.dir, 'aq.sock');
    const lines: string[] = [];
    // A listener in the app's place that records the request and declines it.
    const server = net.createServer((socket) => {
      socket.setEncoding('utf8');
      let buffered = '';
      socket.on('data', (chunk: string) => {
        buffered += chunk;
        if (!buffered.includes('\n')) return;
        lines.push(buffered.slice(0, buffered.indexOf('\n')));
        socket.end(`${JSON.stringify({ served: false, reason: 'recorded' })}\n`);
      });
    });
    try {
      await new Promise<void>((resolve) => server.listen(file, resolve));
      const cliEnv = { AQ_HOME: tmp.dir, SLACK_SIGNING_SECRET: 'SECRET-5', ...SECRETS };
      const client = await spawned(
        process.execPath,
        [path.join(ROOT, 'dist', 'src', 'cli', 'app-socket-client.js'), 'exec', 'get_status'],
        cliEnv,
      );
      expect(client).toEqual({ code: 75, stdout: '', stderr: '' });

      expect(lines).toHaveLength(1);
      for (const secret of [...Object.values(SECRETS), 'SECRET-5', process.env.PATH ?? '']) expect(lines[0]).not.toContain(secret);
      const request = JSON.parse(lines[0]);
      expect(Object.keys(request).sort()).toEqual(['argv', 'build', 'configDigest', 'cwd']);
      expect(request.argv).toEqual(['exec', 'get_status']);
      // What an app configured from the same variables holds, whatever else the environment has.
      expect(request.configDigest).toBe(loadConfig({ ...cliEnv, EDITOR: 'vi' }).envDigest);
      expect(request.configDigest).not.toBe(loadConfig({ ...cliEnv, ANTHROPIC_API_KEY: 'sk-ant-other' }).envDigest);
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await tmp.cleanup();
    }
  });

  it('covers every variable loadConfig reads, and the agent profiles file', async () => {
    const read = new Set<string>();
    const recording = new Proxy({ AQ_HOME: '/nonexistent/aq-home', AQ_WEBHOOK_PORT: '3001' } as Record<string, string>, {
      get: (target, name) => {
        if (typeof name === 'string') read.add(name);
        return target[name as string];
      },
    });
    loadConfig(recording);
    expect([...read].filter((name) => /^[A-Z][A-Z0-9_]*$/.test(name) && !(CONFIG_VARIABLES as readonly string[]).includes(name))).toEqual(
      [],
    );

    const tmp = await makeTempDir('aq-profiles-');
    try {
      const profiles = { AQ_HOME: tmp.dir, AQ_AGENT_PROFILES: path.join(tmp.dir, 'profiles.json') };
      await writeFile(profiles.AQ_AGENT_PROFILES, '[]');
      const before = configDigest(profiles);
      await writeFile(profiles.AQ_AGENT_PROFILES, '[ ]');
      expect(configDigest(profiles)).not.toBe(before);
    } finally {
      await tmp.cleanup();
    }
  });
});

describe('an AQ_HOME other users may write to', () => {
  it('gets no socket, and the app runs as usual', async () => {
    const tmp = await makeTempDir('aq-open-');
    try {
      await chmod(tmp.dir, 0o777);
      const open = await startTestApp({ AQ_HOME: tmp.dir });
      try {
        expect(open.started.appSocket).toBeNull();
        await expect(lstat(path.join(tmp.dir, 'aq.sock'))).rejects.toThrow();
      } finally {
        await open.stop();
      }
    } finally {
      await tmp.cleanup();
    }
  });
});

describe('an AQ_HOME too deep for a socket path', () => {
  it('gets no socket, without an error, and aq still answers in-process', async () => {
    const tmp = await makeTempDir('aq-deep-');
    try {
      const home = path.join(tmp.dir, 'a-folder-name-long-enough-'.repeat(4));
      await mkdir(home, { mode: 0o700 });
      const deep = await startTestApp({ AQ_HOME: home });
      try {
        expect(deep.started.appSocket).toBeNull();
        const run = await aq({ ...sharedEnv(deep), AQ_HOME: home }, ['exec', 'get_status']);
        expect(run).toMatchObject({ code: 0, stderr: '' });
      } finally {
        await deep.stop();
      }
    } finally {
      await tmp.cleanup();
    }
  });
});

describe('a socket left by a killed app', () => {
  it('is passed over by aq, and replaced by the next app on that AQ_HOME', async () => {
    const tmp = await makeTempDir('aq-sock-');
    const slack = await FakeSlack.start();
    try {
      const env = {
        AQ_HOME: tmp.dir,
        SLACK_BOT_TOKEN: 'xoxb-test',
        SLACK_SIGNING_SECRET: 'test-signing-secret',
        SLACK_API_URL: slack.apiUrl,
      };
      const appProcess = spawn(process.execPath, [path.join(ROOT, 'dist', 'src', 'app.js')], {
        env: { PATH: process.env.PATH ?? '', ...env, PORT: String(await freePort()) },
        cwd: process.cwd(),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      await new Promise<void>((resolve, reject) => {
        appProcess.stdout.on('data', (chunk) => String(chunk).includes('Agent Queue is running') && resolve());
        appProcess.on('exit', (code) => reject(new Error(`the app exited ${code}`)));
      });
      const file = path.join(tmp.dir, 'aq.sock');
      expect((await lstat(file)).isSocket()).toBe(true);
      const exited = new Promise((resolve) => appProcess.once('exit', resolve));
      appProcess.kill('SIGKILL');
      await exited;
      expect((await lstat(file)).isSocket()).toBe(true);

      const afterKill = await aq(env, ['exec', 'get_status']);
      expect(afterKill.code).toBe(0);
      expect(afterKill).toEqual(await aq(env, ['exec', 'get_status'], { inProcess: true }));

      const next = await startTestApp({ AQ_HOME: tmp.dir });
      try {
        expect(next.started.appSocket?.path).toBe(file);
        const nextEnv = { ...sharedEnv(next), AQ_HOME: tmp.dir };
        const fast = await aq(nextEnv, ['exec', 'get_status']);
        expect(next.started.appSocket!.served()).toBe(1);
        expect(fast).toEqual(await aq(nextEnv, ['exec', 'get_status'], { inProcess: true }));
      } finally {
        await next.stop();
      }
      await expect(lstat(file)).rejects.toThrow();
    } finally {
      await slack.close();
      await tmp.cleanup();
    }
  });
});
