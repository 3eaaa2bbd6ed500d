// @database-dependent: aq starts from the PostgreSQL startup snapshot and connects to the server.
import { runAqInProcess } from '../../support/aq-in-process';
import { type AqAnswer, type AqRun, runAq, snapshotOf } from '../../support/aq-process';
import { createTestDatabase } from '../../support/postgres-databases';
import { cleanupsAfterEach } from '../../support/tmp';

describe('aq on PostgreSQL, started from its own snapshot', () => {
  const cleanups = cleanupsAfterEach();

  const database = async () => {
    const made = await createTestDatabase();
    cleanups.add(made.drop);
    return made.url;
  };

  const homeDir = () => cleanups.tempDir('aq-pg-snapshot-');

  const scrubbed = <T extends AqAnswer>(home: string, run: T): T => {
    const scrub = (text: string) => text.split(home).join('<AQ_HOME>');
    return { ...run, stdout: scrub(run.stdout), stderr: scrub(run.stderr) };
  };

  /** The real `aq` on AQ_HOME `home` with only `env` (and PATH), its output with the home named, not compared. */
  const aq = async (home: string, env: Record<string, string>, args: string[]): Promise<AqRun> =>
    scrubbed(home, await runAq(home, args, { env }));

  /** The same from its TypeScript sources, in this process. */
  const fromSources = async (home: string, env: Record<string, string>, args: string[]): Promise<AqAnswer> =>
    scrubbed(home, await runAqInProcess(home, args, { env }));

  it('starts from aq-postgres.blob when DATABASE_URL names PostgreSQL, and answers as its TypeScript sources do', async () => {
    const [snapshotDb, sourcesDb] = [await database(), await database()];
    const [snapshotHome, sourcesHome] = [await homeDir(), await homeDir()];
    const commands = [
      ['exec', 'create_project', '{"name": "Demo"}'],
      ['exec', 'create_task', '{"project_id": "demo", "title": "First", "description": "Do it"}'],
      ['exec', 'get_status'],
      ['exec', 'list_projects'],
      ['exec', 'get_task', '{"task_id": "nope"}'],
    ];
    for (const args of commands) {
      const [fromSnapshot, sources] = await Promise.all([
        aq(snapshotHome, { DATABASE_URL: snapshotDb }, args),
        fromSources(sourcesHome, { DATABASE_URL: sourcesDb }, args),
      ]);
      expect(snapshotOf(fromSnapshot)).toBe('aq-postgres.blob');
      // Task ids are random words: named, not compared.
      const same = (run: AqAnswer) => ({ code: run.code, stdout: run.stdout.replace(/[a-z]+-[a-z]+-\d+/g, '<task>'), stderr: run.stderr });
      expect({ args, ...same(fromSnapshot) }).toEqual({ args, ...same(sources) });
    }
    // Without a PostgreSQL URL, the SQLite snapshot as before.
    const sqlite = await aq(await homeDir(), {}, ['exec', 'list_projects']);
    expect(snapshotOf(sqlite)).toBe('aq.blob');
    expect(sqlite.code).toBe(0);
  }, 120_000);

  it('connects as the login user of this process where the URL names none, not as the one who built the snapshot', async () => {
    const url = new URL(await database());
    const { username, password } = url;
    url.username = '';
    url.password = '';
    const run = await aq(
      await homeDir(),
      { DATABASE_URL: url.toString(), USER: decodeURIComponent(username), PGPASSWORD: decodeURIComponent(password) },
      ['exec', 'list_projects'],
    );
    expect(snapshotOf(run)).toBe('aq-postgres.blob');
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toEqual({ projects: [], total: 0, next_offset: null });
  }, 60_000);
});
