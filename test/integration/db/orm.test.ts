import path from 'node:path';
import { openOrm } from '../../../src/db/orm';
import { MIGRATIONS } from '../../../src/db/migrations';
import { makeTempDir } from '../../support/tmp';

describe('openOrm', () => {
  it('creates the schema by migration, in WAL mode with foreign keys on and reads memory-mapped, and is idempotent', async () => {
    const tmp = await makeTempDir();
    const file = path.join(tmp.dir, 'nested', 'aq.db');
    try {
      const orm = await openOrm(file);
      try {
        const conn = orm.em.getConnection();
        expect((await conn.execute('PRAGMA journal_mode'))[0].journal_mode).toBe('wal');
        expect((await conn.execute('PRAGMA foreign_keys'))[0].foreign_keys).toBe(1);
        expect((await conn.execute('PRAGMA mmap_size'))[0].mmap_size).toBe(1024 ** 3);
        const rows = await conn.execute<Array<{ name: string }>>("select name from sqlite_master where type='table'");
        const tables = rows.map((r) => r.name);
        expect(tables).toEqual(expect.arrayContaining(['projects', 'tasks', 'task_dependencies', 'mikro_orm_migrations']));
      } finally {
        await orm.close(true);
      }
      const again = await openOrm(file);
      try {
        expect(await again.getMigrator().getPendingMigrations()).toEqual([]);
        const applied = await again.getMigrator().getExecutedMigrations();
        // Every listed migration, in order (the list grows; each is applied once).
        expect(applied.map((m) => m.name)).toEqual(MIGRATIONS.map((m) => m.name));
        expect(applied[0].name).toBe('Migration20261122225818_initial');
      } finally {
        await again.close(true);
      }
    } finally {
      await tmp.cleanup();
    }
  });
});
