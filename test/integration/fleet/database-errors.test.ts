import { main as startApp } from '../../../src/app';
import { main as aq } from '../../../src/cli';
import type { CliIo } from '../../../src/cli/io';
import { Database } from '../../../src/db/database';
import { onPostgres, SERVER_URL_VARIABLE } from '../../support/postgres-databases';
import { makeTempDir } from '../../support/tmp';
import { freePort } from '../../support/free-port';

jest.setTimeout(60_000);

function captureIo() {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    async *readLines() {},
  };
  return { io, out, err };
}

/**
 * `aq exec`, `aq worker` and `npm start` on a database they cannot use: each exits non-zero with
 * one line that names the database (host:port/name, never the password) and says what to do.
 */
describe('database errors say what is wrong', () => {
  let home: string;
  let cleanup: () => Promise<void>;
  let consoleLines: string[];
  let restoreConsole: () => void;
  beforeEach(async () => {
    ({ dir: home, cleanup } = await makeTempDir('aq-dberr-'));
    consoleLines = [];
    // npm start prints to the console: read what it printed.
    const spies = (['error', 'warn', 'log'] as const).map((level) =>
      jest.spyOn(console, level).mockImplementation((...args: unknown[]) => {
        consoleLines.push(args.map(String).join(' '));
      }),
    );
    restoreConsole = () => {
      for (const s of spies) s.mockRestore();
    };
  });
  afterEach(async () => {
    restoreConsole();
    await cleanup();
  });

  /** Runs all three entry points against `url` and returns what each said. */
  async function allThree(url: string): Promise<{ exec: string[]; worker: string[]; app: string[] }> {
    const env = { AQ_HOME: home, DATABASE_URL: url, AQ_ALLOW_UNSANDBOXED: 'true' };
    const exec = captureIo();
    expect(await aq(['exec', 'get_status'], exec.io, env)).toBe(1);
    expect(exec.out).toEqual([]);
    const worker = captureIo();
    expect(await aq(['worker', '--name', 'w1'], worker.io, env)).toBe(1);
    consoleLines.length = 0;
    expect(await startApp({ ...env, SLACK_BOT_TOKEN: 'xoxb-test', SLACK_APP_TOKEN: 'xapp-test', AQ_ADMINS: 'U1' })).toBe(1);
    return { exec: exec.err, worker: worker.err, app: [...consoleLines] };
  }

  function expectOneLine(said: { exec: string[]; worker: string[]; app: string[] }, sentence: string, secret?: string) {
    expect(said.exec).toEqual([`aq failed: ${sentence}`]);
    expect(said.worker).toEqual([`aq failed: ${sentence}`]);
    expect(said.app).toEqual([`Agent Queue could not open its database: ${sentence}`]);
    for (const line of [...said.exec, ...said.worker, ...said.app]) {
      expect(line).not.toMatch(/\n|\(\S+:\d+:\d+\)|Something went wrong|Slack/);
      if (secret) expect(line).not.toContain(secret);
    }
  }

  if (onPostgres()) {
    const server = () => new URL(process.env[SERVER_URL_VARIABLE] as string);

    it('a wrong password', async () => {
      const url = server();
      url.password = 'not-the-password';
      url.pathname = '/postgres';
      const said = await allThree(url.toString());
      expectOneLine(
        said,
        `PostgreSQL at 127.0.0.1:${url.port}/postgres refused the password of user 'postgres': check the user and password in DATABASE_URL.`,
        'not-the-password',
      );
    });

    it('a database that does not exist (it is not created behind your back)', async () => {
      const url = server();
      url.pathname = '/aq_no_such_database';
      const said = await allThree(url.toString());
      expectOneLine(
        said,
        `The database 'aq_no_such_database' does not exist on the PostgreSQL server at 127.0.0.1:${url.port}/aq_no_such_database: create it (createdb aq_no_such_database) or fix its name in DATABASE_URL.`,
        url.password,
      );
    });

    it('the right URL opens', async () => {
      const url = server();
      url.pathname = '/postgres';
      const db = await Database.open(url.toString());
      await db.close();
    });
  } else {
    it('a closed port', async () => {
      const port = await freePort();
      const said = await allThree(`postgres://aq:s3cret@127.0.0.1:${port}/agent_queue`);
      expectOneLine(
        said,
        `Nothing answers at 127.0.0.1:${port}/agent_queue: start PostgreSQL there, or fix the host and port in DATABASE_URL.`,
        's3cret',
      );
    });

    it('an unknown host', async () => {
      const said = await allThree('postgres://aq:s3cret@no-such-host.invalid:5432/agent_queue');
      expectOneLine(
        said,
        `The database host 'no-such-host.invalid' (no-such-host.invalid:5432/agent_queue) is unknown: fix the host name in DATABASE_URL.`,
        's3cret',
      );
    });
  }
});
