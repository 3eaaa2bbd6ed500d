import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { bubblewrapArgs } from '../../../src/agents/process-sandbox';
import { makeTempDir } from '../../support/tmp';

/** The paths bubblewrapArgs hides (an empty folder or /dev/null over each). */
function masked(args: string[]): string[] {
  const hidden: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--tmpfs') hidden.push(args[i + 1]);
    if (args[i] === '--ro-bind' && args[i + 1] === '/dev/null') hidden.push(args[i + 2]);
  }
  return hidden;
}

describe('bubblewrapArgs: which home secrets a whole agent keeps', () => {
  let tmp: { dir: string; cleanup: () => Promise<void> };
  let home: string;
  const secrets = ['.codex/auth.json', '.claude/.credentials.json', '.ssh'];

  beforeEach(async () => {
    tmp = await makeTempDir('aq-bwrap-args-');
    home = path.join(tmp.dir, 'home');
    for (const secret of secrets) {
      const file = path.join(home, secret);
      await mkdir(path.dirname(file), { recursive: true });
      if (secret === '.ssh') await mkdir(file, { recursive: true });
      else await writeFile(file, 'a login\n');
    }
  });
  afterEach(() => tmp.cleanup());

  const hiddenWith = (own: string[]) =>
    masked(bubblewrapArgs({ home, writable: [path.join(tmp.dir, 'ws'), ...own], own, hidden: [] }, path.join(tmp.dir, 'ws'), 'agent', []));

  it('hides every home secret from an agent with no folder of its own', () => {
    expect(hiddenWith([])).toEqual(expect.arrayContaining(secrets.map((s) => path.join(home, s))));
  });

  it('leaves the login in a folder its profile makes writable, and hides the others', () => {
    const hidden = hiddenWith([path.join(home, '.codex')]);
    expect(hidden).not.toContain(path.join(home, '.codex/auth.json'));
    expect(hidden).toEqual(expect.arrayContaining([path.join(home, '.claude/.credentials.json'), path.join(home, '.ssh')]));
  });

  it('hides them all when the profile makes the whole home folder, or a folder above it, writable', () => {
    for (const own of [home, tmp.dir, '/']) {
      expect(hiddenWith([own])).toEqual(expect.arrayContaining(secrets.map((s) => path.join(home, s))));
    }
  });
});

describe("bubblewrapArgs: a writable repository's git settings and hooks", () => {
  it('are bound read-only after the writable folders, so the bind does not open them again', async () => {
    const tmp = await makeTempDir('aq-bwrap-git-');
    try {
      const ws = path.join(tmp.dir, 'ws');
      await mkdir(path.join(ws, '.git', 'hooks'), { recursive: true });
      await writeFile(path.join(ws, '.git', 'config'), '[core]\n');
      const args = bubblewrapArgs({ home: path.join(tmp.dir, 'home'), writable: [ws], own: [], hidden: [] }, ws, 'agent', []);
      const bind = args.indexOf('--bind');
      for (const control of [path.join(ws, '.git', 'config'), path.join(ws, '.git', 'hooks')]) {
        const at = args.indexOf(control);
        expect(args.slice(at - 1, at + 2)).toEqual(['--ro-bind', control, control]);
        expect(at).toBeGreaterThan(bind);
      }
    } finally {
      await tmp.cleanup();
    }
  });
});

describe('bubblewrapArgs: the folder of every workspace', () => {
  it('is emptied before the writable folders are bound, so the own workspace in it comes back', async () => {
    const tmp = await makeTempDir('aq-bwrap-closed-');
    try {
      const root = path.join(tmp.dir, 'workspaces');
      const ws = path.join(root, 'alpha', 'workspaces', 'ws-1');
      await mkdir(ws, { recursive: true });
      const args = bubblewrapArgs(
        { home: path.join(tmp.dir, 'home'), writable: [ws], own: [], hidden: [], closed: [root] },
        ws,
        'agent',
        [],
      );
      const emptied = args.indexOf(root);
      expect(args[emptied - 1]).toBe('--tmpfs');
      expect(emptied).toBeLessThan(args.indexOf('--bind'));
      // A closed folder inside a writable one (a workspace holding the others) is left alone.
      const inside = bubblewrapArgs(
        { home: path.join(tmp.dir, 'home'), writable: [tmp.dir], own: [], hidden: [], closed: [root] },
        tmp.dir,
        'agent',
        [],
      );
      expect(inside).not.toContain(root);
    } finally {
      await tmp.cleanup();
    }
  });
});

describe('bubblewrapArgs: a landing check', () => {
  it('gets an empty /tmp of its own before the workspace is bound, and the namespaces an agent gets', () => {
    const ws = '/tmp/aq-bwrap-check/ws';
    const args = bubblewrapArgs({ home: '/nonexistent-home', writable: [ws], own: [], hidden: [], privateTmp: true }, ws, '/bin/sh', [
      '-c',
      'true',
    ]);
    const tmp = args.findIndex((a, i) => a === '--tmpfs' && args[i + 1] === '/tmp');
    expect(tmp).toBeGreaterThan(-1);
    expect(tmp).toBeLessThan(args.indexOf('--bind'));
    expect(args).toEqual(expect.arrayContaining(['--unshare-pid', '--unshare-ipc', '--new-session']));
    expect(args.slice(-4)).toEqual(['--', '/bin/sh', '-c', 'true']);
    // An agent's sandbox keeps the machine's /tmp: its own temp folder is among its writable ones.
    expect(bubblewrapArgs({ home: '/nonexistent-home', writable: [ws], own: [], hidden: [] }, ws, 'agent', [])).not.toContain('/tmp');
  });
});
