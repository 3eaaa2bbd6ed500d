import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gitOut } from './git-fixtures';

export type ForgeTool = 'gh' | 'glab';

/**
 * What a fake CLI answers. `url` for `pr create` / `mr create`; `view` is printed as the JSON of
 * `pr view` / `mr view`; `merge` sets `view.state` to `mergedState`, or fails with `mergeError`;
 * `auth: false` makes `auth status` fail as a logged-out CLI does.
 */
export interface FakeForgeState {
  url?: string;
  view?: Record<string, unknown>;
  mergedState?: string;
  mergeError?: string;
  auth?: boolean;
}

/**
 * A test double of the external gh and glab programs: one node script under both names, which
 * appends its arguments to `<tool>.calls.jsonl` and answers from `<tool>.state.json`. `gh pr
 * checks --required` lists the `view.statusCheckRollup` entries marked `isRequired: true`.
 */
const SCRIPT = `#!${process.execPath}
const fs = require('fs');
const path = require('path');
const tool = path.basename(process.argv[1]);
const args = process.argv.slice(2);
const file = (ext) => path.join(__dirname, tool + ext);
fs.appendFileSync(file('.calls.jsonl'), JSON.stringify(args) + '\\n');
const state = fs.existsSync(file('.state.json')) ? JSON.parse(fs.readFileSync(file('.state.json'), 'utf8')) : {};
const fail = (text) => { process.stderr.write(text + '\\n'); process.exit(1); };
if (args[0] === 'auth') {
  if (state.auth === false) fail(tool === 'gh' ? 'You are not logged into any GitHub hosts. To log in, run: gh auth login' : 'No token found. Run glab auth login.');
  process.exit(0);
}
if (args[1] === 'create') { console.log(state.url); process.exit(0); }
if (args[1] === 'view') { console.log(JSON.stringify(state.view || {})); process.exit(0); }
if (args[1] === 'checks') {
  // gh pr checks --required --json name,bucket: the rollup's checks marked isRequired, exiting 1 (a failure) or 8 (running) as gh does.
  const verdict = (c) => String(c.conclusion || c.state || '').toUpperCase();
  const bucketOf = (c) => ['FAILURE', 'ERROR', 'TIMED_OUT', 'ACTION_REQUIRED', 'STARTUP_FAILURE'].includes(verdict(c)) ? 'fail'
    : verdict(c) === 'CANCELLED' ? 'cancel'
    : (c.status && String(c.status).toUpperCase() !== 'COMPLETED') || ['PENDING', 'EXPECTED'].includes(verdict(c)) ? 'pending'
    : ['SKIPPED', 'NEUTRAL'].includes(verdict(c)) ? 'skipping' : 'pass';
  const required = ((state.view || {}).statusCheckRollup || []).filter((c) => c.isRequired).map((c) => ({ name: c.name || c.context, bucket: bucketOf(c) }));
  if (required.length === 0) fail("no required checks reported on the 'task' branch");
  console.log(JSON.stringify(required));
  process.exit(required.some((c) => c.bucket === 'fail' || c.bucket === 'cancel') ? 1 : required.some((c) => c.bucket === 'pending') ? 8 : 0);
}
if (args[1] === 'merge') {
  if (state.mergeError) fail(state.mergeError);
  state.view = Object.assign({}, state.view, { state: state.mergedState });
  fs.writeFileSync(file('.state.json'), JSON.stringify(state));
  process.exit(0);
}
fail('fake ' + tool + ': unknown command ' + args.join(' '));
`;

export interface FakeForges {
  /** A folder holding `gh` and `glab`, to put first on PATH. */
  bin: string;
  setState(tool: ForgeTool, state: FakeForgeState): Promise<void>;
  /** Every call since the last reset, each as its argument list. */
  calls(tool: ForgeTool): Promise<string[][]>;
  /** Forgets the calls and the state of both tools. */
  reset(): Promise<void>;
}

export async function installFakeForges(dir: string): Promise<FakeForges> {
  const bin = path.join(dir, 'fake-forge-bin');
  await mkdir(bin, { recursive: true });
  for (const tool of ['gh', 'glab'] as const) {
    await writeFile(path.join(bin, tool), SCRIPT);
    await chmod(path.join(bin, tool), 0o755);
  }
  return {
    bin,
    setState: (tool, state) => writeFile(path.join(bin, `${tool}.state.json`), JSON.stringify(state)),
    async reset() {
      for (const tool of ['gh', 'glab']) {
        for (const file of [`${tool}.calls.jsonl`, `${tool}.state.json`]) await rm(path.join(bin, file), { force: true });
      }
    },
    async calls(tool) {
      const text = await readFile(path.join(bin, `${tool}.calls.jsonl`), 'utf8').catch(() => '');
      return text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as string[]);
    },
  };
}

/**
 * Makes a workspace's origin look like a forge (`url`, e.g. https://github.com/acme/widget.git)
 * while git still reaches the local bare repository, through `url.<origin>.insteadOf`.
 */
export async function useForgeRemote(workspace: string, origin: string, url: string): Promise<void> {
  await gitOut(workspace, 'remote', 'set-url', 'origin', url);
  await gitOut(workspace, 'config', `url.${origin}.insteadOf`, url);
}
