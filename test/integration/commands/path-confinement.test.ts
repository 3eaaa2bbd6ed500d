import { mkdir, readdir, readFile, realpath, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Actor, AnyCommand } from '../../../src/commands/catalog';
import { commandFields } from '../../../src/commands/help';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { makeTempDir } from '../../support/tmp';

/*
 * Every command that takes a path-like field (found in the catalog by field name, so a new
 * command is covered without new test code), and every notes command, is run with each escaping
 * value: `..` chains, absolute paths, a symlink out, a dangling symlink out, a symlinked parent,
 * a symlink to a file outside, and find-mode patterns that name them. Each run must either fail
 * with a sentence or answer without anything from outside, and must change nothing outside.
 */

const PROBE = 'hush-4242';
const MARKER = 'TOPSECRET-MARKER-7f3a';
const PATH_FIELD = /^(path|pattern|.+_path|.+_dir)$/;

/** Values for the other fields; a new required field needs a value here (the test says which). */
const FILLER: Record<string, unknown> = {
  project_id: 'alpha',
  command: `ls -a; cat ${PROBE} 2>/dev/null; true`,
  workspace: 'main',
  title: 'leak',
  content: 'written by the confinement test',
  name: 'probe',
  max_lines: 20,
  timeout: 5,
  // An intake automation's `pattern` is a message filter, not a path; it is offered escapes all the same.
  automation_id: 'probe',
};

type Case = { command: string; args: Record<string, unknown> };

function casesFor(command: AnyCommand, escapes: string[]): Case[] {
  const fields = commandFields(command);
  const pathFields = fields.filter((f) => PATH_FIELD.test(f.name));
  if (pathFields.length === 0 && command.group !== 'notes') return [];
  let variants: Array<Record<string, unknown>> = [{}];
  for (const field of fields) {
    if (PATH_FIELD.test(field.name)) continue;
    if (field.choices) {
      variants = variants.flatMap((v) => field.choices!.map((choice) => ({ ...v, [field.name]: choice })));
    } else if (field.name in FILLER) {
      variants = variants.map((v) => ({ ...v, [field.name]: FILLER[field.name] }));
    } else if (field.required) {
      throw new Error(`Add a value for ${command.name}.${field.name} to FILLER in path-confinement.test.ts.`);
    }
  }
  const cases: Case[] = [];
  for (const base of variants) {
    if (pathFields.length === 0) {
      for (const project_id of ['alpha', 'beta']) cases.push({ command: command.name, args: { ...base, project_id } });
    }
    for (const field of pathFields) {
      const others = Object.fromEntries(pathFields.filter((f) => f !== field).map((f) => [f.name, f.name === 'pattern' ? PROBE : 'alpha']));
      for (const value of escapes) cases.push({ command: command.name, args: { ...base, ...others, [field.name]: value } });
    }
  }
  return cases;
}

/** Names and contents below `dir` (symlinks as their target text), skipping `ignore` at the top. */
async function snapshot(dir: string, ignore: string[] = []): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (current: string) => {
    for (const entry of await readdir(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (current === dir && ignore.includes(entry.name)) continue;
      if (entry.isDirectory()) await walk(full);
      else if (entry.isSymbolicLink()) out[path.relative(dir, full)] = `-> ${await realpath(full).catch(() => 'dangling')}`;
      else out[path.relative(dir, full)] = await readFile(full, 'utf8');
    }
  };
  await walk(dir);
  return out;
}

interface Scenario {
  title: string;
  env: Record<string, string>;
  actor: Actor;
  /** The place the escapes lead to, given the runtime's data folder. */
  outside(home: string): Promise<{ dir: string; cleanup: () => Promise<void>; ignore: string[] }>;
}

const scenarios: Scenario[] = [
  {
    title: 'a trusted caller, escaping into the data folder (never linkable)',
    env: {},
    actor: { source: 'cli' },
    outside: async (home) => ({
      dir: home,
      cleanup: async () => {},
      ignore: ['workspaces', 'agent-queue.db', 'agent-queue.db-wal', 'agent-queue.db-shm'],
    }),
  },
  {
    title: 'a Slack user outside AQ_ADMINS, escaping into another folder',
    env: { AQ_ADMINS: 'U1' },
    actor: { source: 'slack', userId: 'U2' },
    outside: async () => ({ ...(await makeTempDir('aq-confine-out-')), ignore: [] }),
  },
];

describe.each(scenarios)('paths stay inside: $title', (scenario) => {
  let rt: TestRuntime;
  let outside: string;
  let ignore: string[];
  let cleanupOutside: () => Promise<void>;
  let escapes: string[];

  beforeAll(async () => {
    rt = await makeTestRuntime(scenario.env);
    const out = await scenario.outside(rt.home);
    ({ cleanup: cleanupOutside, ignore } = out);
    outside = await realpath(out.dir);
    await mkdir(path.join(outside, 'sub'), { recursive: true });
    for (const file of [PROBE, `${PROBE}.md`, path.join('sub', PROBE), path.join('sub', `${PROBE}.md`)]) {
      await writeFile(path.join(outside, file), `# ${PROBE}\n${MARKER}\n`);
    }
    for (const project of ['alpha', 'beta']) await rt.exec('create_project', { name: project });
    const ws = path.join(rt.config.workspaceDir, 'alpha');
    await writeFile(path.join(ws, 'inside.txt'), 'harmless\n');
    await symlink(path.join(outside, 'sub'), path.join(ws, 'escape'));
    await symlink(path.join(outside, 'sub', PROBE), path.join(ws, 'filelink'));
    await symlink(path.join(outside, 'missing', 'deeper'), path.join(ws, 'dangling'));
    await symlink(path.join(outside, 'sub'), path.join(ws, 'notes'));
    await symlink(path.join(outside, 'sub'), path.join(ws, 'specs'));
    await rt.db.workspaces.create({ id: 'alpha-main', projectId: 'alpha', name: 'main', path: ws, sourceType: 'clone', repoId: null });
    // beta: a real notes/ folder whose note files are symlinks out.
    const betaNotes = path.join(rt.config.workspaceDir, 'beta', 'notes');
    await mkdir(betaNotes);
    await symlink(path.join(outside, `${PROBE}.md`), path.join(betaNotes, 'leak.md'));
    await symlink(path.join(outside, 'missing.md'), path.join(betaNotes, 'dangling.md'));

    const up = '../'.repeat(12);
    escapes = [
      outside,
      path.join(outside, PROBE),
      `${up}${outside.slice(1)}`,
      `${up}${outside.slice(1)}/${PROBE}`,
      path.relative(rt.config.workspaceDir, outside),
      `${path.relative(rt.config.workspaceDir, outside)}/${PROBE}`,
      '../..',
      'alpha/escape',
      `alpha/escape/${PROBE}`,
      'escape',
      `escape/${PROBE}`,
      'alpha/escape/../sub',
      'alpha/filelink',
      'filelink',
      'alpha/dangling',
      'alpha/dangling/new.txt',
      'dangling/new.txt',
      'escape/**',
      'escape/*',
      'alpha/escape/**',
      `**/${PROBE}`,
      `../**/${PROBE}`,
      `${outside}/**`,
      `{..,escape}/**/${PROBE}`,
      `@(..)/**/${PROBE}`,
      `\\.\\./**/${PROBE}`,
      '*',
    ];
  });
  afterAll(async () => {
    await rt.cleanup();
    await cleanupOutside();
  });

  it('covers the file commands it should (the generator found them in the catalog)', () => {
    const covered = new Set(rt.handler.commands.filter((c) => casesFor(c, ['x']).length > 0).map((c) => c.name));
    for (const name of [
      'read_file',
      'run_command',
      'search_files',
      'list_directory',
      'add_repo',
      'add_workspace',
      'compare_specs_notes',
      'read_note',
      'write_note',
      'append_note',
      'delete_note',
      'list_notes',
    ]) {
      expect(covered).toContain(name);
    }
  });

  it('refuses each escape, or answers with nothing from outside and changes nothing there', async () => {
    const before = await snapshot(outside, ignore);
    const leaks: string[] = [];
    for (const command of rt.handler.commands) {
      for (const c of casesFor(command, escapes)) {
        const result = await rt.handler.executeAny(c.command, c.args, scenario.actor);
        const text = JSON.stringify(result);
        const label = `${c.command} ${JSON.stringify(c.args)} → ${text.slice(0, 300)}`;
        if (text.includes(MARKER)) leaks.push(`content: ${label}`);
        if (!('error' in result) && text.includes(PROBE)) leaks.push(`name: ${label}`);
        if ('error' in result && (Object.keys(result).length !== 1 || /\n\s+at |SQLITE|ERR_/.test(String(result.error))))
          leaks.push(`not a sentence: ${label}`);
        const after = await snapshot(outside, ignore);
        if (JSON.stringify(after) !== JSON.stringify(before)) {
          leaks.push(`changed outside: ${label}`);
          break;
        }
      }
    }
    expect(leaks).toEqual([]);
    // Nothing got linked on the way: the outside folder is still out of reach.
    await expect(rt.handler.execute('read_file', { path: path.join(outside, PROBE) }, scenario.actor)).resolves.toEqual({
      error: expect.stringMatching(/^(Access denied|Only workspace admins)/),
    });
  });
});
