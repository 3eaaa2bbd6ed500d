import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { makeTempDir } from '../../support/tmp';

const execFileAsync = promisify(execFile);
const ROOT = path.join(__dirname, '..', '..', '..');

async function run(file: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }) {
  try {
    const { stdout, stderr } = await execFileAsync(file, args, { ...options, timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('npm start', () => {
  it('starts from the built app without rebuilding and says which Slack settings are missing', async () => {
    const home = await makeTempDir('aq-start-');
    try {
      const before = (await stat(path.join(ROOT, 'dist', '.build-stamp'))).mtimeMs;
      const env = { PATH: process.env.PATH, HOME: home.dir, AQ_HOME: home.dir, npm_config_update_notifier: 'false' };
      const started = await run('npm', ['start', '--silent'], { cwd: ROOT, env });
      expect(started.code).toBe(1);
      expect(started.stderr).toContain('SLACK_BOT_TOKEN and SLACK_APP_TOKEN (or SLACK_SIGNING_SECRET) are not set');
      // The global setup built dist/ for this run; nothing changed since, so start did not build.
      expect((await stat(path.join(ROOT, 'dist', '.build-stamp'))).mtimeMs).toBe(before);
    } finally {
      await home.cleanup();
    }
  });
});

/**
 * scripts/build-if-stale.js in a small project of its own, with a stand-in for scripts/transpile.js
 * that records each build (the real one is exercised by the global setup of every run).
 */
describe('build-if-stale', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  const builds = async () => (await readFile(path.join(dir, 'builds.log'), 'utf8').catch(() => '')).split('\n').filter(Boolean).length;
  const build = (...args: string[]) => run(process.execPath, [path.join(dir, 'scripts', 'build-if-stale.js'), ...args], { cwd: dir });
  /** An edit made after the last build: the build goes back in time, the file after it. */
  const touch = async (file: string) => {
    const now = Date.now();
    await utimes(path.join(dir, 'dist', '.build-stamp'), new Date(now - 20_000), new Date(now - 20_000));
    await utimes(path.join(dir, file), new Date(now - 10_000), new Date(now - 10_000));
  };

  beforeEach(async () => {
    ({ dir, cleanup } = await makeTempDir('aq-build-'));
    await mkdir(path.join(dir, 'scripts'));
    await copyFile(path.join(ROOT, 'scripts', 'build-if-stale.js'), path.join(dir, 'scripts', 'build-if-stale.js'));
    await writeFile(
      path.join(dir, 'scripts', 'transpile.js'),
      `const fs = require('fs'); const path = require('path');
       exports.transpile = async (root) => {
         fs.appendFileSync(path.join(root, 'builds.log'), 'build\\n');
         if (fs.existsSync(path.join(root, 'src', 'broken.ts'))) throw new Error('src/broken.ts: Expression expected');
         fs.mkdirSync(path.join(root, 'dist', 'src'), { recursive: true });
         fs.writeFileSync(path.join(root, 'dist', 'src', 'app.js'), '');
       };`,
    );
    await mkdir(path.join(dir, 'src', 'db'), { recursive: true });
    await writeFile(path.join(dir, 'src', 'app.ts'), '');
    await writeFile(path.join(dir, 'src', 'db', 'orm.ts'), '');
    await writeFile(path.join(dir, 'tsconfig.json'), '{}');
    await writeFile(path.join(dir, 'scripts', 'swc-options.js'), 'module.exports = {};');
  });
  afterEach(() => cleanup());

  it('builds a fresh clone, then only when a source, a folder or a tsconfig changed', async () => {
    expect((await build()).code).toBe(0);
    expect(await builds()).toBe(1);
    expect((await build()).code).toBe(0);
    expect(await builds()).toBe(1);

    await touch('src/db/orm.ts');
    await build();
    expect(await builds()).toBe(2);

    await rm(path.join(dir, 'src', 'db', 'orm.ts'));
    await touch('src/db');
    await build();
    expect(await builds()).toBe(3);

    await touch('scripts/swc-options.js');
    await build();
    expect(await builds()).toBe(4);
    await build();
    expect(await builds()).toBe(4);

    expect((await build('--force')).code).toBe(0);
    expect(await builds()).toBe(5);
  });

  /** The real bundler script with a stand-in for esbuild that records each bundle it makes. */
  const withBundler = async (esbuildBody: string) => {
    await copyFile(path.join(ROOT, 'scripts', 'bundle-cli.js'), path.join(dir, 'scripts', 'bundle-cli.js'));
    await mkdir(path.join(dir, 'node_modules', 'esbuild'), { recursive: true });
    await writeFile(
      path.join(dir, 'node_modules', 'esbuild', 'index.js'),
      `const fs = require('fs'); const path = require('path');
       exports.build = async (options) => {
         fs.appendFileSync(path.join(__dirname, '..', '..', 'bundles.log'), options.entryPoints[0] + '\\n');
         ${esbuildBody}
       };`,
    );
  };
  const bundles = async () => (await readFile(path.join(dir, 'bundles.log'), 'utf8').catch(() => '')).split('\n').filter(Boolean);
  const npmInstalled = async () => {
    await writeFile(path.join(dir, 'node_modules', '.package-lock.json'), '{}');
    const later = new Date(Date.now() + 5_000);
    await utimes(path.join(dir, 'node_modules', '.package-lock.json'), later, later);
  };

  it('bundles the CLI after each build and after npm changed node_modules, and only then', async () => {
    await withBundler("return { outputFiles: [{ text: 'bundled \u2026 code' }] };");
    expect((await build()).code).toBe(0);
    expect(await bundles()).toEqual([path.join(dir, 'dist', 'src', 'cli.js')]);
    // Written as ASCII, so Node can read the 3 MB file the fast way.
    expect(await readFile(path.join(dir, 'dist', 'aq-cli.js'), 'utf8')).toBe('bundled \\u2026 code');
    await build();
    expect(await bundles()).toHaveLength(1);

    await npmInstalled();
    await build();
    expect({ builds: await builds(), bundles: (await bundles()).length }).toEqual({ builds: 1, bundles: 2 });
  });

  it('a failed bundle leaves the build standing: aq then runs unbundled', async () => {
    await withBundler("throw new Error('esbuild broke');");
    const built = await build();
    expect(built.code).toBe(0);
    expect(built.stderr).toContain('Bundling the CLI failed, so aq runs unbundled (slower to start): esbuild broke');
    expect(existsSync(path.join(dir, 'dist', 'aq-cli.js'))).toBe(false);
  });

  it('a failed build fails the start with a sentence, and is tried again next time', async () => {
    await writeFile(path.join(dir, 'src', 'broken.ts'), '');
    const failed = await build();
    expect(failed.code).toBe(2);
    expect(failed.stderr).toContain('src/broken.ts: Expression expected');
    expect(failed.stderr).toContain('The build failed (see above); fix it and run npm start again.');
    await build();
    expect(await builds()).toBe(2);
  });
});
