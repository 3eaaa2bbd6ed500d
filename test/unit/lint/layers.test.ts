import { execFile } from 'node:child_process';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { makeTempDir } from '../../support/tmp';

const run = promisify(execFile);
const root = path.resolve(__dirname, '../../..');
const biome = path.join(root, 'node_modules/.bin/biome');

/** Lints `files` (path → source) in a scratch tree that uses the project's biome.json. */
async function lint(files: Record<string, string>): Promise<string> {
  const { dir, cleanup } = await makeTempDir('aq-layers-');
  try {
    return await lintIn(dir, files);
  } finally {
    await cleanup();
  }
}

async function lintIn(dir: string, files: Record<string, string>): Promise<string> {
  await copyFile(path.join(root, 'biome.json'), path.join(dir, 'biome.json'));
  for (const [file, source] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), source);
  }
  try {
    const { stdout, stderr } = await run(biome, ['lint', '--max-diagnostics=none', '--colors=off', ...Object.keys(files)], { cwd: dir });
    return stdout + stderr;
  } catch (err) {
    const { stdout, stderr } = err as { stdout: string; stderr: string };
    return stdout + stderr;
  }
}

const upward: Array<[string, string]> = [
  ['src/orchestrator/upward.ts', '../chat/agent'],
  ['src/plan/upward.ts', '../chat/anthropic'],
  ['src/agents/upward.ts', '../orchestrator/orchestrator'],
  ['src/slack/upward-listeners.ts', '../../listeners'],
  ['src/slack/upward-cli.ts', '../cli/exec'],
  ['src/commands/upward.ts', '../slack/home'],
  ['src/db/repositories/upward.ts', '../../commands/catalog'],
  ['listeners/events/upward.ts', '../../src/db/database'],
];

const downward: Record<string, string> = {
  'src/orchestrator/downward.ts':
    "import { a } from '../db/database';\nimport { b } from '../model/provider';\nimport { c } from './events';\nexport const d = [a, b, c];\n",
  'listeners/events/downward.ts':
    "import { a } from '../../src/slack/home';\nimport { b } from '../../src/commands/catalog';\nexport const c = [a, b];\n",
  'src/db/repositories/own.ts': "import { a } from './agents';\nexport const b = a;\n",
};

/** One biome diagnostic block per file: its header line starts with the file's path. */
function diagnosticsOf(output: string, file: string): string[] {
  return output.split('\n').filter((line) => line.startsWith(`${file}:`));
}

describe('the layer rule (biome noRestrictedImports, DESIGN.md Layers)', () => {
  let output = '';

  beforeAll(async () => {
    const files: Record<string, string> = { ...downward };
    for (const [file, target] of upward) files[file] = `import { x } from '${target}';\nexport const y = x;\n`;
    output = await lint(files);
  });

  it.each(upward)('fails %s importing %s', (file) => {
    const found = diagnosticsOf(output, file);
    expect(found).toHaveLength(1);
    expect(found[0]).toContain('lint/style/noRestrictedImports');
  });

  it('lets a layer import from below it and from its own folder', () => {
    for (const file of Object.keys(downward)) expect(diagnosticsOf(output, file)).toEqual([]);
  });
});
