import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { main } from '../../../src/cli';
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
      { projects: [expect.objectContaining({ id: 'a', status: 'PAUSED' })] },
    ]);
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

  it('reports a configuration error in one line', async () => {
    const { io, err } = captureIo();
    expect(await main(['exec', 'list_projects'], io, { AQ_HOME: home, PORT: 'abc' })).toBe(1);
    expect(err).toEqual(['Configuration error: PORT must be a whole number between 1 and 65535 (got "abc").']);
  });

  it('runs as the installed bin with zero configuration besides AQ_HOME', async () => {
    const bin = path.join(__dirname, '..', '..', '..', 'bin', 'aq.js');
    const { stdout } = await execFileAsync(process.execPath, [bin, 'exec', 'list_projects'], {
      env: { PATH: process.env.PATH, AQ_HOME: home },
    });
    expect(JSON.parse(stdout)).toEqual({ projects: [] });
  });
});
