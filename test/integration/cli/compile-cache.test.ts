import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { makeTempDir } from '../../support/tmp';

const execFileAsync = promisify(execFile);
// The cache runs before TypeScript support exists in a process, so it is tested as built (as bin/aq.js uses it).
const BUILT = path.join(__dirname, '..', '..', '..', 'dist', 'src', 'cli', 'compile-cache.js');

describe('the aq start-up cache', () => {
  let root: string;
  let cleanup: () => Promise<void>;
  let cacheDir: string;
  beforeEach(async () => {
    ({ dir: root, cleanup } = await makeTempDir('aq-compile-cache-'));
    cacheDir = path.join(root, 'node_modules', '.cache', 'aq');
    await mkdir(path.join(root, 'node_modules', 'dep'), { recursive: true });
    await writeFile(path.join(root, 'node_modules', '.package-lock.json'), '{}');
    await writeFile(path.join(root, 'node_modules', 'dep', 'index.js'), "module.exports = () => 'dep';");
    await writeFile(path.join(root, 'main.js'), "module.exports = require('./answer') + ':' + require('dep')();");
    await writeFile(path.join(root, 'answer.js'), "module.exports = 'one';");
  });
  afterEach(() => cleanup());

  /** A fresh process that installs the cache, then loads main.js and prints what it exports. */
  const run = async (asciiFiles: string[] = []) => {
    const options = JSON.stringify({ asciiFiles: asciiFiles.map((f) => path.join(root, f)) });
    const script = `require(${JSON.stringify(BUILT)}).installCompileCache(${JSON.stringify(root)}, ${JSON.stringify(cacheDir)}, ${options});
      process.stdout.write(require(${JSON.stringify(path.join(root, 'main.js'))}));`;
    return (await execFileAsync(process.execPath, ['-e', script], { cwd: root })).stdout;
  };
  const cacheFiles = async () => (await readdir(cacheDir)).filter((f) => f.endsWith('.bin'));

  it('writes the cache on the first run and gives the same results from it', async () => {
    expect(await run()).toBe('one:dep');
    const [file] = await cacheFiles();
    const written = await readFile(path.join(cacheDir, file));
    expect(written.length).toBeGreaterThan(0);
    expect(await run()).toBe('one:dep');
    // Nothing was missing on the second run, so the file was not rewritten.
    expect((await readFile(path.join(cacheDir, file))).equals(written)).toBe(true);
  });

  it('runs the new code after a source changes, even at the same length', async () => {
    expect(await run()).toBe('one:dep');
    await writeFile(path.join(root, 'answer.js'), "module.exports = 'two';");
    expect(await run()).toBe('two:dep');
  });

  it('resolves afresh after npm changes node_modules', async () => {
    expect(await run()).toBe('one:dep');
    await mkdir(path.join(root, 'node_modules', 'dep', 'lib'));
    await writeFile(path.join(root, 'node_modules', 'dep', 'lib', 'main.js'), "module.exports = () => 'new dep';");
    await writeFile(path.join(root, 'node_modules', 'dep', 'package.json'), '{"main": "lib/main.js"}');
    await writeFile(path.join(root, 'node_modules', '.package-lock.json'), '{"changed": true}');
    expect(await run()).toBe('one:new dep');
  });

  it('reads the files it is told are ASCII as such, and as UTF-8 when they are not', async () => {
    await writeFile(path.join(root, 'answer.js'), "module.exports = 'plain';");
    expect(await run(['answer.js', 'main.js'])).toBe('plain:dep');
    await writeFile(path.join(root, 'answer.js'), "module.exports = 'caf\u00e9 \u2026';");
    expect(await run(['answer.js', 'main.js'])).toBe('caf\u00e9 \u2026:dep');
    expect(await run(['answer.js', 'main.js'])).toBe('caf\u00e9 \u2026:dep');
  });

  it('keeps only the code of the last run that compiled something', async () => {
    expect(await run()).toBe('one:dep');
    await writeFile(path.join(root, 'main.js'), "module.exports = require('./answer');");
    expect(await run()).toBe('one');
    const [file] = await cacheFiles();
    const blob = await readFile(path.join(cacheDir, file));
    const index = JSON.parse(blob.subarray(4, 4 + blob.readUInt32LE(0)).toString('utf8')) as { code: Array<{ file: string }> };
    expect(index.code.map((c) => path.basename(c.file)).sort()).toEqual(['answer.js', 'main.js']);
  });

  it('starts normally from a damaged cache file and replaces it', async () => {
    expect(await run()).toBe('one:dep');
    const [file] = await cacheFiles();
    await writeFile(path.join(cacheDir, file), 'not a cache');
    expect(await run()).toBe('one:dep');
    expect((await readFile(path.join(cacheDir, file))).length).toBeGreaterThan(100);
  });
});
