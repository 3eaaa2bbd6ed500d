// @database-dependent: the merge train settings are stored, migrated and read back through the repositories.
import path from 'node:path';
import { Database } from '../../../src/db/database';
import { databaseBefore } from '../../support/older-database';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { makeTempDir } from '../../support/tmp';

describe('merge train settings of a project', () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = await makeTestRuntime();
  });
  afterEach(async () => {
    await rt.cleanup();
  });

  it('defaults to no check, 600 s, rebase and 3 tries, and get_project shows them beside the other settings', async () => {
    await rt.exec('create_project', { name: 'p' });
    expect(await rt.exec('get_project', { project_id: 'p' })).toMatchObject({
      id: 'p',
      task_rooms: 'approval',
      overlap_policy: 'warn',
      backends: null,
      check_command: '',
      check_timeout_seconds: 600,
      landing: 'rebase',
      landing_tries: 3,
    });
  });

  it('takes them at create_project and changes them with edit_project', async () => {
    await rt.exec('create_project', { name: 'p', check_command: 'npm test', landing: 'merge' });
    expect(await rt.exec('get_project', { project_id: 'p' })).toMatchObject({ check_command: 'npm test', landing: 'merge' });
    expect(
      await rt.exec('edit_project', {
        project_id: 'p',
        check_command: '',
        check_timeout_seconds: '120',
        landing: 'rebase',
        landing_tries: 5,
      }),
    ).toEqual({ updated: 'p', fields: ['check_command', 'check_timeout_seconds', 'landing', 'landing_tries'] });
    expect(await rt.exec('get_project', { project_id: 'p' })).toMatchObject({
      check_command: '',
      check_timeout_seconds: 120,
      landing: 'rebase',
      landing_tries: 5,
    });
  });

  it('refuses values out of bounds in a sentence naming the field, and unknown projects', async () => {
    await rt.exec('create_project', { name: 'p' });
    const refused = [
      await rt.exec('edit_project', { project_id: 'p', landing: 'squash' }),
      await rt.exec('edit_project', { project_id: 'p', landing_tries: 0 }),
      await rt.exec('edit_project', { project_id: 'p', check_timeout_seconds: 99999 }),
      await rt.exec('create_project', { name: 'q', landing_tries: 'many' }),
    ];
    for (const [i, field] of ['landing', 'landing_tries', 'check_timeout_seconds', 'landing_tries'].entries()) {
      expect(refused[i]).toEqual({ error: expect.stringMatching(new RegExp(`^Field '${field}' `)) });
      expect(String(refused[i].error)).not.toMatch(/zod|ZodError|\bat \w+ \(/);
    }
    expect(await rt.exec('get_project', { project_id: 'p' })).toMatchObject({ landing: 'rebase', landing_tries: 3 });
    expect(await rt.exec('get_project', { project_id: 'nope' })).toEqual({ error: "Project 'nope' not found." });
  });
});

describe('the landing settings migration', () => {
  it('gives existing projects the defaults', async () => {
    const tmp = await makeTempDir('aq-migrate-');
    try {
      const file = path.join(tmp.dir, 'old.db');
      const now = Date.now();
      await databaseBefore(file, 'Migration20261125200300_landing_settings', async (sql) => {
        await sql(`insert into projects (id, name, workspace, created_at, updated_at) values ('p1', 'P1', '/w/p1', ${now}, ${now})`);
      });
      const db = await Database.open(file);
      try {
        expect(await db.projects.get('p1')).toMatchObject({
          name: 'P1',
          checkCommand: '',
          checkTimeoutSeconds: 600,
          landing: 'rebase',
          landingTries: 3,
        });
      } finally {
        await db.close();
      }
    } finally {
      await tmp.cleanup();
    }
  });
});
