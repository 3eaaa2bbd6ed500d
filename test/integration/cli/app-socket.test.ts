import { spawn } from 'node:child_process';
import { chmod, lstat, mkdir } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { FakeSlack } from '../../support/fake-slack';
import { startTestApp, type TestApp } from '../../support/slack-app';
import { makeTempDir } from '../../support/tmp';

const ROOT = path.join(__dirname, '..', '..', '..');
/** `aq` as npm installs it: the shell script that asks the app's socket before anything else. */
const AQ = path.join(ROOT, 'bin', 'aq');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The real `aq` as its own process, in the app's folder; `inProcess` turns the socket off. */
function aq(env: Record<string, string>, args: string[], options: { inProcess?: boolean } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(AQ, args, {
      env: { PATH: process.env.PATH ?? '', ...env, ...(options.inProcess ? { AQ_NO_SOCKET: '1' } : {}) },
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

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
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
    const request = { build: 'another build', argv: ['exec', 'get_status'], env, cwd: process.cwd() };
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
    const before = served();
    const other = { ...env, AQ_ADMINS: 'U0ADMIN' };
    const run = await aq(other, ['exec', 'get_project', '{"project_id": "demo"}']);
    expect(served()).toBe(before);
    expect(run).toEqual(await aq(other, ['exec', 'get_project', '{"project_id": "demo"}'], { inProcess: true }));
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
