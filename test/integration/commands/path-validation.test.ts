import { mkdir, realpath, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CommandContext } from '../../../src/commands/catalog';
import { isWithin, resolveReal, validatePath } from '../../../src/commands/path-validation';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { makeTempDir } from '../../support/tmp';

describe('isWithin', () => {
  it('compares path segments, not string prefixes', () => {
    expect(isWithin('/ws', '/ws')).toBe(true);
    expect(isWithin('/ws/a/b', '/ws')).toBe(true);
    expect(isWithin('/ws/..notes', '/ws')).toBe(true);
    expect(isWithin('/ws-evil', '/ws')).toBe(false);
    expect(isWithin('/ws-evil/x', '/ws')).toBe(false);
    expect(isWithin('/w', '/ws')).toBe(false);
    expect(isWithin('/', '/ws')).toBe(false);
    expect(isWithin('/other/ws', '/ws')).toBe(false);
    expect(isWithin('/anything', '/')).toBe(true);
  });
});

describe('path validation', () => {
  let rt: TestRuntime;
  let ctx: CommandContext;
  let ws: string;
  let outside: string;
  let cleanupOutside: () => Promise<void>;

  beforeEach(async () => {
    rt = await makeTestRuntime();
    ctx = { config: rt.config, db: rt.db } as CommandContext;
    await mkdir(path.join(rt.config.workspaceDir, 'proj', 'src'), { recursive: true });
    ws = await realpath(rt.config.workspaceDir);
    await writeFile(path.join(ws, 'proj', 'src', 'a.txt'), 'inside');
    ({ dir: outside, cleanup: cleanupOutside } = await makeTempDir('aq-outside-'));
    outside = await realpath(outside);
    await writeFile(path.join(outside, 'secret.txt'), 'secret');
  });
  afterEach(async () => {
    await rt.cleanup();
    await cleanupOutside();
  });

  const denied = (target: string) =>
    expect(validatePath(ctx, target)).rejects.toThrow(/^Access denied: .* is outside the allowed directories/);

  it('allows the workspace directory itself and anything under it, returning the real path', async () => {
    expect(await validatePath(ctx, ws)).toBe(ws);
    expect(await validatePath(ctx, path.join(ws, 'proj', 'src', 'a.txt'))).toBe(path.join(ws, 'proj', 'src', 'a.txt'));
    expect(await validatePath(ctx, path.join(ws, 'proj', 'new', 'file.txt'))).toBe(path.join(ws, 'proj', 'new', 'file.txt'));
  });

  it('denies .. escapes and absolute paths outside', async () => {
    await denied(path.join(ws, 'proj', '..', '..', 'agent-queue.db'));
    await denied(`${ws}/proj/../../../etc/passwd`);
    await denied(path.join(outside, 'secret.txt'));
    await denied('/etc/passwd');
    await denied('/');
    // `..` that stays inside is fine.
    expect(await validatePath(ctx, `${ws}/proj/src/../src/a.txt`)).toBe(path.join(ws, 'proj', 'src', 'a.txt'));
  });

  it('denies a sibling folder sharing the prefix (/ws-evil is not under /ws)', async () => {
    const evil = `${ws}-evil`;
    await mkdir(evil);
    await writeFile(path.join(evil, 'x.txt'), 'evil');
    await denied(evil);
    await denied(path.join(evil, 'x.txt'));
  });

  it('denies a symlink inside the workspace that points outside, for existing and not-yet-existing files', async () => {
    await symlink(outside, path.join(ws, 'proj', 'escape'));
    await denied(path.join(ws, 'proj', 'escape'));
    await denied(path.join(ws, 'proj', 'escape', 'secret.txt'));
    await denied(path.join(ws, 'proj', 'escape', 'not-yet.txt'));
    await denied(path.join(ws, 'proj', 'escape', 'new-dir', 'deeper', 'x.txt'));
    await symlink(path.join(outside, 'secret.txt'), path.join(ws, 'proj', 'secret-link'));
    await denied(path.join(ws, 'proj', 'secret-link'));
  });

  it('denies a dangling symlink that points outside, even through a relative target', async () => {
    await symlink(path.join(outside, 'missing', 'file'), path.join(ws, 'proj', 'dangling'));
    await denied(path.join(ws, 'proj', 'dangling'));
    await denied(path.join(ws, 'proj', 'dangling', 'below'));
    await symlink('../../../../../../../../../../../tmp/aq-nowhere', path.join(ws, 'proj', 'relative-dangling'));
    await denied(path.join(ws, 'proj', 'relative-dangling'));
  });

  it('allows a symlink that points inside, resolving it to its target', async () => {
    await symlink(path.join(ws, 'proj', 'src'), path.join(ws, 'proj', 'src-link'));
    expect(await validatePath(ctx, path.join(ws, 'proj', 'src-link', 'a.txt'))).toBe(path.join(ws, 'proj', 'src', 'a.txt'));
    expect(await validatePath(ctx, path.join(ws, 'proj', 'src-link', 'new.txt'))).toBe(path.join(ws, 'proj', 'src', 'new.txt'));
  });

  it("allows a repo's source_path outside the workspace directory, by segments too", async () => {
    const linked = path.join(outside, 'repo');
    await mkdir(linked);
    await writeFile(path.join(linked, 'README.md'), 'repo');
    await mkdir(`${linked}-evil`);
    await denied(path.join(linked, 'README.md'));
    await rt.exec('create_project', { name: 'p' });
    await rt.db.repos.create({
      id: 'r',
      projectId: 'p',
      name: 'r',
      sourceType: 'link',
      url: null,
      sourcePath: linked,
      defaultBranch: 'main',
      checkoutBasePath: null,
    });
    expect(await validatePath(ctx, path.join(linked, 'README.md'))).toBe(path.join(linked, 'README.md'));
    expect(await validatePath(ctx, linked)).toBe(linked);
    await denied(`${linked}-evil`);
    await denied(path.join(outside, 'secret.txt'));
  });

  it('judges the workspace directory by its real path when it is reached through a symlink', async () => {
    const { dir: home, cleanup } = await makeTempDir('aq-linked-ws-');
    const viaLink = path.join(home, 'ws-link');
    await symlink(ws, viaLink);
    const linkedRt = await makeTestRuntime({ AQ_WORKSPACE_DIR: viaLink });
    try {
      const linkedCtx = { config: linkedRt.config, db: linkedRt.db } as CommandContext;
      expect(await validatePath(linkedCtx, path.join(viaLink, 'proj', 'src', 'a.txt'))).toBe(path.join(ws, 'proj', 'src', 'a.txt'));
      expect(await validatePath(linkedCtx, path.join(ws, 'proj', 'src', 'a.txt'))).toBe(path.join(ws, 'proj', 'src', 'a.txt'));
      await expect(validatePath(linkedCtx, path.join(viaLink, '..', 'x'))).rejects.toThrow(/^Access denied/);
    } finally {
      await linkedRt.cleanup();
      await cleanup();
    }
  });

  it('refuses symlink loops with a sentence', async () => {
    await symlink(path.join(ws, 'proj', 'loop-b'), path.join(ws, 'proj', 'loop-a'));
    await symlink(path.join(ws, 'proj', 'loop-a'), path.join(ws, 'proj', 'loop-b'));
    await expect(validatePath(ctx, path.join(ws, 'proj', 'loop-a', 'x'))).rejects.toThrow(/loop of symbolic links/);
  });

  it('resolveReal re-appends the missing tail under the deepest existing real ancestor', async () => {
    await symlink(path.join(ws, 'proj'), path.join(ws, 'proj-link'));
    expect(await resolveReal(path.join(ws, 'proj-link', 'a', 'b.txt'))).toBe(path.join(ws, 'proj', 'a', 'b.txt'));
    expect(await resolveReal(path.join(ws, 'proj', 'src', 'a.txt', 'under-a-file'))).toBe(
      path.join(ws, 'proj', 'src', 'a.txt', 'under-a-file'),
    );
  });
});
