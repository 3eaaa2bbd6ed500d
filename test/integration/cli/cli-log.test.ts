import { existsSync } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { main } from '../../../src/cli';
import type { CliIo } from '../../../src/cli/io';
import { cliLogPath, fileLog } from '../../../src/cli/log-file';
import { leaksIn } from '../hardening/clean-error';
import { makeTempDir } from '../../support/tmp';

function captureIo() {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { stdout: (t) => out.push(t), stderr: (t) => err.push(t), async *readLines() {} };
  return { io, out, err };
}

describe('aq log file', () => {
  let home: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dir: home, cleanup } = await makeTempDir('aq-cli-log-'));
  });
  afterEach(() => cleanup());

  it('keeps the details of an unexpected failure in AQ_HOME/logs/aq.log, not on the terminal', async () => {
    // The workspace folder is a file, so creating a project's workspace fails in the file system.
    const notAFolder = path.join(home, 'not-a-folder');
    await writeFile(notAFolder, '');
    const { io, out, err } = captureIo();
    const env = { AQ_HOME: home, AQ_WORKSPACE_DIR: notAFolder };
    expect(await main(['exec', 'create_project', '{"name": "demo"}'], io, env)).toBe(1);
    const printed = [...out, ...err].join('\n');
    expect(JSON.parse(out[0]).error).toEqual(expect.any(String));
    expect(leaksIn(printed)).toEqual([]);

    const log = await readFile(cliLogPath(home), 'utf8');
    expect(log).toMatch(/^\d{4}-\d\d-\d\dT\S+ Command create_project failed: Error: E[A-Z]+/);
    expect(log).toMatch(/\n\s+at /); // the stack is in the file
  });

  it('rotates past its size: at most the current file and one older one', async () => {
    const file = cliLogPath(home);
    const log = fileLog(file, 100);
    for (let i = 0; i < 20; i++) log(`line ${i} ${'x'.repeat(30)}`);
    expect((await stat(file)).size).toBeLessThan(100 + 60);
    expect((await stat(`${file}.1`)).size).toBeLessThan(100 + 60);
    expect(existsSync(`${file}.2`)).toBe(false);
    expect(await readFile(file, 'utf8')).toContain('line 19 ');
  });

  it('does not fail the command when the log cannot be written', () => {
    const log = fileLog(path.join(home, 'no', '\0bad', 'aq.log'));
    expect(() => log('message')).not.toThrow();
  });
});

describe('aq failing before any command runs', () => {
  it('says in one sentence which database cannot be used and what to check, without the driver text', async () => {
    const { dir: home, cleanup } = await makeTempDir('aq-cli-log-');
    try {
      // The database path is a folder: opening it fails in the SQLite driver.
      const { io, out, err } = captureIo();
      expect(await main(['exec', 'list_projects'], io, { AQ_HOME: home, DATABASE_URL: `sqlite:${home}` })).toBe(1);
      expect(out).toEqual([]);
      expect(err).toHaveLength(1);
      expect(err[0]).toBe(
        `aq failed: The SQLite database ${home} cannot be used: it cannot be opened for writing. Check AQ_HOME or DATABASE_URL.`,
      );
      expect(leaksIn(err[0])).toEqual([]);
      expect(err[0]).not.toMatch(/SQLITE_/);
    } finally {
      await cleanup();
    }
  });
});

describe('aq output on a terminal', () => {
  it('writes text that would reorder the line as escapes: the same JSON, read as it is', async () => {
    const { dir: home, cleanup } = await makeTempDir('aq-cli-bidi-');
    try {
      const { io, out } = captureIo();
      const env = { AQ_HOME: home };
      expect(await main(['exec', 'create_project', '{"name": "demo"}'], io, env)).toBe(0);
      const title = 'Fix \u202Etxt.exe\u202C and \u2067isolated\u2069 \u{1F468}\u200D\u{1F469}\u200D\u{1F467}';
      expect(await main(['exec', 'create_task', JSON.stringify({ project_id: 'demo', title, description: 'd' })], io, env)).toBe(0);
      const line = out.at(-1) ?? '';
      expect(line).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
      expect(line).toContain('Fix \\u202etxt.exe\\u202c and \\u2067isolated\\u2069');
      expect(JSON.parse(line).title).toBe(title);
    } finally {
      await cleanup();
    }
  });
});
