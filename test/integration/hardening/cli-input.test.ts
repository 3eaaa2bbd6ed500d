import { execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { MAX_LINE_BYTES } from '../../../src/cli/io';
import { makeTempDir } from '../../support/tmp';
import { expectCleanError } from './clean-error';

/** Deep and oversized input through the real `aq` process (bin/aq.js on the built dist/). */
const execFileAsync = promisify(execFile);
const BIN = path.join(__dirname, '..', '..', '..', 'bin', 'aq.js');

function nestedObject(levels: number): string {
  return `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
}

function nestedList(levels: number): string {
  return `${'['.repeat(levels)}${']'.repeat(levels)}`;
}

/** Runs `aq exec -`, feeding `input`; resolves when the process exits. */
function execStream(home: string, input: string): Promise<{ code: number | null; lines: string[]; stderr: string }> {
  const child = spawn(process.execPath, [BIN, 'exec', '-'], { env: { PATH: process.env.PATH, AQ_HOME: home } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  child.stdin.end(input);
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, lines: stdout.split('\n').filter(Boolean), stderr })));
}

describe('aq exec with hostile input', () => {
  let home: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dir: home, cleanup } = await makeTempDir('aq-hard-'));
  });
  afterEach(() => cleanup());

  it('exec - answers deep, oversized and broken lines with one error line each and goes on', async () => {
    const lines = [
      JSON.stringify({ name: 'create_project', args: { name: 'demo' } }),
      `{"name":"create_hook","args":{"project_id":"demo","name":"h","prompt_template":"p","trigger":${nestedObject(10_000)}}}`,
      `{"name":"create_project","args":{"name":${nestedList(10_000)}}}`,
      nestedList(100_000),
      JSON.stringify({ name: 'write_note', args: { project_id: 'demo', title: 'big', content: 'x'.repeat(2 * MAX_LINE_BYTES) } }),
      `{"name":"get_status","args":{"deep":${nestedObject(500_000)}}}`,
      `not json ${'y'.repeat(10_000)}`,
      JSON.stringify({ name: 'set_task_status', args: { task_id: 'a\u0000b', status: 'READY' } }),
      JSON.stringify({ name: 'list_projects' }),
    ];
    const { code, lines: out, stderr } = await execStream(home, `${lines.join('\r\n')}\n`);
    expect(stderr).toBe('');
    expect(code).toBe(1);
    const results = out.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(results).toHaveLength(lines.length);
    expect(results[0]).toMatchObject({ created: 'demo' });
    expect(results[1]).toEqual({ error: "Field 'trigger' is nested more than 32 levels deep; send a flatter value." });
    expect(results[2]).toEqual({ error: "Field 'name' is nested more than 32 levels deep; send a flatter value." });
    expect(results[3]).toEqual({ error: 'Line 4 needs a "name" string, like {"name": "get_status", "args": {}}.' });
    expect(results[4]).toEqual({ error: 'Line 5 is 8.1 MB, larger than the 4.0 MB the CLI reads; it was skipped.' });
    expect(results[5]).toEqual({ error: "Field 'deep' is nested more than 32 levels deep; send a flatter value." });
    expect(expectCleanError(results[6])).toMatch(/^Line 7 is not valid JSON: /);
    expect((results[6].error as string).length).toBeLessThan(300);
    expectCleanError(results[7], "Field 'task_id' contains a NUL character");
    expect(results[8]).toMatchObject({ projects: [expect.objectContaining({ id: 'demo' })] });
    for (const r of results.slice(1, 8)) expectCleanError(r);
  });

  it('exec NAME JSON_ARGS refuses deep input in one line', async () => {
    const deep = await execFileAsync(process.execPath, [BIN, 'exec', 'create_project', `{"name":${nestedList(10_000)}}`], {
      env: { PATH: process.env.PATH, AQ_HOME: home },
    }).catch((err: { code: number; stdout: string; stderr: string }) => err);
    expect(deep).toMatchObject({ code: 1, stderr: '' });
    expect(deep.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(deep.stdout)).toEqual({ error: "Field 'name' is nested more than 32 levels deep; send a flatter value." });

    const deepObject = await execFileAsync(process.execPath, [BIN, 'exec', 'get_status', nestedObject(10_000)], {
      env: { PATH: process.env.PATH, AQ_HOME: home },
    }).catch((err: { code: number; stdout: string }) => err);
    expect(JSON.parse(deepObject.stdout)).toEqual({ error: "Field 'a' is nested more than 32 levels deep; send a flatter value." });
  });
});
