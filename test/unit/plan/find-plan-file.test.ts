import { mkdir, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { findPlanFile, readPlanFile } from '../../../src/plan/parser';
import { makeTempDir } from '../../support/tmp';

async function put(root: string, rel: string, mtimeSeconds?: number): Promise<string> {
  const file = path.join(root, rel);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `# ${rel}\n`);
  if (mtimeSeconds !== undefined) await utimes(file, mtimeSeconds, mtimeSeconds);
  return file;
}

describe('findPlanFile', () => {
  let root: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dir: root, cleanup } = await makeTempDir('aq-plan-'));
  });
  afterEach(() => cleanup());

  it('returns null when nothing matches', async () => {
    expect(await findPlanFile(root)).toBeNull();
  });

  it.each(['.agent/plan.md', 'plan.md', 'docs/plan.md'])('finds the plain pattern %s', async (rel) => {
    const file = await put(root, rel);
    expect(await findPlanFile(root)).toBe(file);
  });

  it('checks patterns in order: .agent/plan.md before plan.md', async () => {
    await put(root, 'plan.md', 2_000_000_000);
    const first = await put(root, '.agent/plan.md', 1_000_000_000);
    expect(await findPlanFile(root)).toBe(first);
  });

  it('picks the newest regular file of a glob by modification time', async () => {
    await put(root, 'docs/plans/a.md', 1_000_000_000);
    const newest = await put(root, 'docs/plans/b.md', 1_500_000_000);
    await put(root, 'docs/plans/c.md', 1_200_000_000);
    await mkdir(path.join(root, 'docs/plans/dir.md'));
    expect(await findPlanFile(root)).toBe(newest);
  });

  it('lets an earlier glob decide over later patterns, and a plain pattern shadow a newer glob match', async () => {
    const older = await put(root, 'docs/plans/old.md', 1_000_000_000);
    await put(root, 'plans/new.md', 1_900_000_000);
    await put(root, 'docs/plan.md', 1_900_000_000);
    expect(await findPlanFile(root)).toBe(older);

    const plain = await put(root, 'plan.md', 1_000);
    expect(await findPlanFile(root)).toBe(plain);
  });

  it('ignores a directory named like a plan file', async () => {
    await mkdir(path.join(root, 'plan.md'));
    const file = await put(root, 'plans/x.md');
    expect(await findPlanFile(root)).toBe(file);
  });

  it('accepts custom patterns and follows symlinks to files', async () => {
    const target = await put(root, 'elsewhere/real.md');
    await mkdir(path.join(root, 'custom'));
    await symlink(target, path.join(root, 'custom', 'link.md'));
    expect(await findPlanFile(root, ['custom/*.md'])).toBe(path.join(root, 'custom', 'link.md'));
    expect(await findPlanFile(root, ['nothing/*.md', 'elsewhere/real.md'])).toBe(target);
  });

  it('reads the file unmodified as UTF-8', async () => {
    const file = path.join(root, 'plan.md');
    await writeFile(file, '# Ünïcode\r\n\r\n## Step\r\n');
    expect(await readPlanFile(file)).toBe('# Ünïcode\r\n\r\n## Step\r\n');
  });
});
