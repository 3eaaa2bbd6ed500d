import { execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { main } from '../../../src/cli';
import { ALL_COMMANDS } from '../../../src/commands';
import { PLAN_FILE_MAX_BYTES } from '../../../src/plan/parser';
import type { CliIo } from '../../../src/cli/io';
import { makeTempDir } from '../../support/tmp';

const execFileAsync = promisify(execFile);

function captureIo(stdinLines: string[] = []) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    async *readLines() {
      yield* stdinLines;
    },
  };
  return { io, out, err };
}

describe('aq CLI', () => {
  let home: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dir: home, cleanup } = await makeTempDir('aq-cli-'));
  });
  afterEach(() => cleanup());
  const env = () => ({ AQ_HOME: home });

  it('exec prints one JSON line and exits 1 on an error result', async () => {
    const ok = captureIo();
    expect(await main(['exec', 'create_project', '{"name": "Demo"}'], ok.io, env())).toBe(0);
    expect(JSON.parse(ok.out[0])).toMatchObject({ created: 'demo', name: 'Demo' });

    const bad = captureIo();
    expect(await main(['exec', 'pause_project', '{"project_id": "nope"}'], bad.io, env())).toBe(1);
    expect(JSON.parse(bad.out[0])).toEqual({ error: "Project 'nope' not found." });

    const invalid = captureIo();
    expect(await main(['exec', 'list_projects', '[1]'], invalid.io, env())).toBe(2);
    expect(invalid.err[0]).toMatch(/must be a JSON object/);
  });

  it('exec - runs one command per line in one session, in order, reporting bad lines', async () => {
    await main(['exec', 'create_project', '{"name": "a"}'], captureIo().io, env());
    const { io, out } = captureIo([
      '{"name": "pause_project", "args": {"project_id": "a"}}',
      '',
      'not json',
      '{"args": {}}',
      '{"name": "list_projects"}',
    ]);
    expect(await main(['exec', '-'], io, env())).toBe(1);
    expect(out.map((l) => JSON.parse(l))).toEqual([
      { paused: 'a', name: 'a' },
      { error: expect.stringMatching(/^Line 3 is not valid JSON/) },
      { error: expect.stringMatching(/^Line 4 needs a "name"/) },
      { projects: [expect.objectContaining({ id: 'a', status: 'PAUSED' })], total: 1, next_offset: null },
    ]);
  });

  it('exec reports unknown commands and unreadable JSON_ARGS', async () => {
    const unknown = captureIo();
    expect(await main(['exec', 'no_such_command'], unknown.io, env())).toBe(1);
    expect(unknown.out).toEqual(['{"error":"Unknown command: no_such_command"}']);
    const badJson = captureIo();
    expect(await main(['exec', 'list_projects', '{name:'], badJson.io, env())).toBe(2);
    expect(badJson.out).toEqual([]);
    expect(badJson.err[0]).toMatch(/^JSON_ARGS is not valid JSON: /);
    const invalidField = captureIo();
    expect(await main(['exec', 'get_recent_events', '{"limit": "many"}'], invalidField.io, env())).toBe(1);
    expect(JSON.parse(invalidField.out[0]).error).toContain('limit');
  });

  it('exec - keeps one session: the active project carries from line to line', async () => {
    const { io, out } = captureIo([
      '{"name": "create_project", "args": {"name": "Focus"}}',
      '{"name": "set_active_project", "args": {"project_id": "focus"}}',
      '{"name": "create_task", "args": {"title": "T", "description": "D"}}',
      '   ',
      '{"name": "list_tasks"}',
      '{"name": "set_active_project"}',
      '{"name": "create_task", "args": {"title": "T2", "description": "D"}}',
    ]);
    expect(await main(['exec', '-'], io, env())).toBe(1);
    const results = out.map((l) => JSON.parse(l));
    expect(results).toHaveLength(6);
    expect(results[1]).toEqual({ active_project: 'focus', name: 'Focus' });
    expect(results[2]).toMatchObject({ title: 'T', project_id: 'focus' });
    expect(results[3]).toMatchObject({ total: 1, tasks: [expect.objectContaining({ title: 'T', project_id: 'focus' })] });
    expect(results[4]).toEqual({ active_project: null, message: 'Active project cleared' });
    expect(results[5]).toEqual({ error: expect.stringContaining('project') });

    const clean = captureIo(['{"name": "list_projects"}', '{"name": "get_status", "args": {}}']);
    expect(await main(['exec', '-'], clean.io, env())).toBe(0);
    expect(clean.out).toHaveLength(2);
  });

  it('--help explains the tool, AQ_HOME and the zero-config database', async () => {
    const { io, out } = captureIo();
    expect(await main(['--help'], io, env())).toBe(0);
    const text = out.join('\n');
    expect(text).toContain('AQ_HOME');
    expect(text).toContain('~/.agent-queue');
    expect(text).toContain('SQLite');
    expect(text).toMatch(/exec <name> \[json_args\]/);
    expect(text).toContain('help [command]');
    expect(text).toContain('plan');
  });

  it('help groups the catalog and details every command from its schema', async () => {
    const list = captureIo();
    expect(await main(['help'], list.io, env())).toBe(0);
    const text = list.out.join('\n');
    for (const header of ['Projects:', 'Hooks:', 'Notes:', 'Files:', 'System:']) expect(text).toContain(header);
    expect(text).toMatch(/Hooks:\n {2}create_hook +Create a hook/);
    const run = captureIo();
    expect(await main(['help', 'run_command'], run.io, env())).toBe(0);
    expect(run.out[0]).toContain('run_command — Run a shell command');
    expect(run.out[0]).toContain('Admin only in Slack (AQ_ADMINS).');
    expect(run.out[0]).toContain('Class: admin (the chat agent asks a person to confirm it).');
    expect(run.out[0]).toContain('  command (string, required) — Shell command line');
    expect(run.out[0]).toContain('  timeout (integer, optional) — Seconds before the command is killed (default 30)');
    const search = captureIo();
    await main(['help', 'search_files'], search.io, env());
    expect(search.out[0]).toContain('mode (choice, optional) — grep (default) or find (one of: grep, find)');
    for (const command of ALL_COMMANDS) {
      const one = captureIo();
      expect(await main(['help', command.name], one.io, env())).toBe(0);
      expect(one.out[0].startsWith(`${command.name} — `)).toBe(true);
    }
  });

  it('help lists the catalog and explains one command; an unknown one gets suggestions', async () => {
    const list = captureIo();
    expect(await main(['help'], list.io, env())).toBe(0);
    expect(list.out[0]).toContain('create_project');
    const one = captureIo();
    await main(['help', 'create_project'], one.io, env());
    expect(one.out[0]).toContain('name (string, required)');
    const unknown = captureIo();
    expect(await main(['help', 'creat_project'], unknown.io, env())).toBe(1);
    expect(unknown.err[0]).toContain('Did you mean: create_project');
  });

  it('plan parse prints snake_case JSON; plan find prints the path or exits 1', async () => {
    const file = path.join(home, 'plan.md');
    await writeFile(file, '## Step 1: Build\nBuild the whole thing with tests.\n');
    const parsed = captureIo();
    expect(await main(['plan', 'parse', file, '--max-steps', '5'], parsed.io, env())).toBe(0);
    expect(JSON.parse(parsed.out[0])).toEqual({
      source_file: file,
      steps: [{ title: 'Build', description: 'Build the whole thing with tests.', priority_hint: 0 }],
      raw_content: '## Step 1: Build\nBuild the whole thing with tests.\n',
    });
    const found = captureIo();
    expect(await main(['plan', 'find', home], found.io, env())).toBe(0);
    expect(found.out).toEqual([file]);
    const none = captureIo();
    expect(await main(['plan', 'find', path.join(home, 'workspaces')], none.io, env())).toBe(1);
    expect(none.out).toEqual([]);
    const missing = captureIo();
    expect(await main(['plan', 'parse', path.join(home, 'nope.md')], missing.io, env())).toBe(1);
    expect(missing.err[0]).toMatch(/^Plan file not found/);
    const badSteps = captureIo();
    expect(await main(['plan', 'parse', file, '--max-steps', 'x'], badSteps.io, env())).toBe(2);
  });

  it('plan parse reads a pipe to its end, and stops at the size the app takes a plan to: no endless read', async () => {
    const fifo = path.join(home, 'plan.fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const written = writeFile(fifo, '## Step 1: Piped\nCame through a pipe.\n');
    const piped = captureIo();
    expect(await main(['plan', 'parse', fifo], piped.io, env())).toBe(0);
    await written;
    expect(JSON.parse(piped.out[0]).steps).toEqual([{ title: 'Piped', description: 'Came through a pipe.', priority_hint: 0 }]);
    const endless = captureIo();
    expect(await main(['plan', 'parse', '/dev/zero'], endless.io, env())).toBe(1);
    expect(endless.err).toEqual(['/dev/zero holds more than the 4 MB a plan may be. The app skips such a plan.']);
    const large = path.join(home, 'large.md');
    await writeFile(large, `## Step 1: Large\n${'x'.repeat(PLAN_FILE_MAX_BYTES)}`);
    const tooLarge = captureIo();
    expect(await main(['plan', 'parse', large], tooLarge.io, env())).toBe(1);
    expect(tooLarge.err).toEqual([`${large} holds more than the 4 MB a plan may be. The app skips such a plan.`]);
    expect(tooLarge.out).toEqual([]);
  });

  it('reports a configuration error in one line', async () => {
    const { io, err } = captureIo();
    expect(await main(['exec', 'list_projects'], io, { AQ_HOME: home, PORT: 'abc' })).toBe(1);
    expect(err).toEqual(['Configuration error: PORT must be a whole number between 1 and 65535 (got "abc").']);
  });

  it('runs as the installed bin with zero configuration: the database goes to ~/.agent-queue and the process exits', async () => {
    const bin = path.join(__dirname, '..', '..', '..', 'bin', 'aq.js');
    const started = Date.now();
    const { stdout } = await execFileAsync(process.execPath, [bin, 'exec', 'list_projects'], {
      env: { PATH: process.env.PATH, HOME: home },
      timeout: 20_000,
    });
    expect(JSON.parse(stdout)).toEqual({ projects: [], total: 0, next_offset: null });
    expect(existsSync(path.join(home, '.agent-queue', 'agent-queue.db'))).toBe(true);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('the installed bin reads exec - from standard input and exits 1 when a line failed', async () => {
    const bin = path.join(__dirname, '..', '..', '..', 'bin', 'aq.js');
    const child = spawn(process.execPath, [bin, 'exec', '-'], { env: { PATH: process.env.PATH, AQ_HOME: home } });
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stdin.end(
      '{"name": "create_project", "args": {"name": "x"}}\n{"name": "set_active_project", "args": {"project_id": "x"}}\nnope\n',
    );
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(1);
    expect(
      stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([
      expect.objectContaining({ created: 'x' }),
      { active_project: 'x', name: 'x' },
      { error: expect.stringMatching(/^Line 3 is not valid JSON: /) },
    ]);
  });

  it('the bin says how to build when dist/ is missing', async () => {
    await mkdir(path.join(home, 'bin'));
    await copyFile(path.join(__dirname, '..', '..', '..', 'bin', 'aq.js'), path.join(home, 'bin', 'aq.js'));
    const failure = await execFileAsync(process.execPath, [path.join(home, 'bin', 'aq.js'), 'help']).catch(
      (err: { code: number; stderr: string }) => err,
    );
    expect(failure).toMatchObject({ code: 1, stderr: 'aq is not built yet: run `npm run build` (npm ci does it for you).\n' });
  });

  it('runs as the installed bin with zero configuration besides AQ_HOME', async () => {
    const bin = path.join(__dirname, '..', '..', '..', 'bin', 'aq.js');
    const { stdout } = await execFileAsync(process.execPath, [bin, 'exec', 'list_projects'], {
      env: { PATH: process.env.PATH, AQ_HOME: home },
    });
    expect(JSON.parse(stdout)).toEqual({ projects: [], total: 0, next_offset: null });
  });
});
