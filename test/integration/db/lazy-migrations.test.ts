import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { MIGRATIONS } from '../../../src/db/migrations';
import { shippedMigrationNames } from '../../../src/db/orm';
import { makeTempDir } from '../../support/tmp';

const execFileAsync = promisify(execFile);
const DIST_ORM = path.join(__dirname, '..', '..', '..', 'dist', 'src', 'db', 'orm.js');

/** Opens the database in a fresh Node process (the built code) and says whether the migrations were loaded. */
async function openAndReport(file: string): Promise<{ migrationsLoaded: boolean; applied: string[] }> {
  const script = `
    const { openOrm } = require(${JSON.stringify(DIST_ORM)});
    openOrm(${JSON.stringify(file)}).then(async (orm) => {
      const applied = (await orm.em.getConnection().execute('select name from mikro_orm_migrations')).map((r) => r.name);
      // MikroORM reads every @mikro-orm package.json for a version check; the code is what costs.
      const migrationsLoaded = Object.keys(require.cache).some((k) => /@mikro-orm[\\/]migrations[\\/].*\\.js$/.test(k));
      await orm.close(true);
      process.stdout.write(JSON.stringify({ migrationsLoaded, applied }));
    });`;
  const { stdout } = await execFileAsync(process.execPath, ['-e', script], { cwd: path.dirname(DIST_ORM) });
  return JSON.parse(stdout);
}

describe('migrations are loaded only when the database needs them', () => {
  it('every migration file is listed in MIGRATIONS under its file name, and only those', async () => {
    expect(await shippedMigrationNames()).toEqual(MIGRATIONS.map((m) => m.name).sort());
  });

  it('a new database is migrated; opening it again loads no migration code', async () => {
    const tmp = await makeTempDir('aq-orm-');
    try {
      const file = path.join(tmp.dir, 'aq.db');
      const first = await openAndReport(file);
      expect(first).toEqual({ migrationsLoaded: true, applied: MIGRATIONS.map((m) => m.name) });
      expect(await openAndReport(file)).toEqual({ migrationsLoaded: false, applied: MIGRATIONS.map((m) => m.name) });
    } finally {
      await tmp.cleanup();
    }
  });
});
