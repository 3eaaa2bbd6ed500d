// Builds dist/ from src, listeners, bench and the test support the benches start (fake Slack,
// embedded PostgreSQL) with swc (scripts/swc-options.js), each .ts file to a
// .js file and its source map. A second or two where tsc took half a minute: `npm test` checks the
// types, so the build need not. Folders are rebuilt whole, so a deleted source leaves nothing behind.
const fs = require('node:fs/promises');
const path = require('node:path');
const OPTIONS = require('./swc-options');

const FOLDERS = ['src', 'listeners', 'bench', path.join('test', 'support')];

async function sourcesIn(dir) {
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  const nested = await Promise.all(
    entries.map((e) => {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) return sourcesIn(full);
      return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [full] : [];
    }),
  );
  return nested.flat();
}

/** Transpiles every source under `root` into `root`/dist; resolves to the number of files. */
async function transpile(root) {
  const swc = require('@swc/core');
  const dist = path.join(root, 'dist');
  await Promise.all(FOLDERS.map((f) => fs.rm(path.join(dist, f), { recursive: true, force: true })));
  const files = (await Promise.all(FOLDERS.map((f) => sourcesIn(path.join(root, f))))).flat();
  await Promise.all(
    files.map(async (file) => {
      const target = path.join(dist, path.relative(root, file)).replace(/\.ts$/, '.js');
      const out = await swc.transformFile(file, {
        ...OPTIONS,
        sourceMaps: true,
        sourceFileName: path.relative(path.dirname(target), file),
        swcrc: false,
        configFile: false,
      });
      await fs.mkdir(path.dirname(target), { recursive: true });
      await fs.writeFile(target, `${out.code}\n//# sourceMappingURL=${path.basename(target)}.map\n`);
      if (out.map) await fs.writeFile(`${target}.map`, out.map);
    }),
  );
  return files.length;
}

module.exports = { transpile };
