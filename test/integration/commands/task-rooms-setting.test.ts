// @database-dependent: the project's task_rooms setting and each task's room are stored columns and rows, and a migration adds them.
import path from 'node:path';
import { Database } from '../../../src/db/database';
import { databaseBefore } from '../../support/older-database';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { makeTempDir } from '../../support/tmp';

/** Which tasks get a Slack room is a project setting; get_task shows a task's room once it has one. */
describe('task_rooms and the room of a task', () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = await makeTestRuntime();
  });
  afterEach(() => rt.cleanup());

  it('defaults to approval (not shown), is set by create_project and edit_project, and refuses other values with the choices', async () => {
    expect(await rt.exec('create_project', { name: 'alpha' })).not.toHaveProperty('task_rooms');
    expect(await rt.db.projects.get('alpha')).toMatchObject({ taskRooms: 'approval' });
    expect(await rt.exec('create_project', { name: 'beta', task_rooms: 'all' })).toMatchObject({ created: 'beta', task_rooms: 'all' });
    expect(await rt.exec('edit_project', { project_id: 'alpha', task_rooms: 'off' })).toEqual({ updated: 'alpha', fields: ['task_rooms'] });
    const listed = (await rt.exec('list_projects')) as { projects: Array<Record<string, unknown>> };
    expect(listed.projects.map((p) => [p.id, p.task_rooms])).toEqual([
      ['alpha', 'off'],
      ['beta', 'all'],
    ]);
    await rt.exec('edit_project', { project_id: 'alpha', task_rooms: 'approval' });
    expect(await rt.db.projects.get('alpha')).toMatchObject({ taskRooms: 'approval' });
    const bad = await rt.exec('edit_project', { project_id: 'alpha', task_rooms: 'sometimes' });
    expect(bad).toEqual({ error: expect.stringMatching(/task_rooms/) });
    expect(String(bad.error)).toMatch(/all.*approval.*off/);
  });

  it('get_task shows room_channel_id, room_url and views once the task has a room, and nothing before', async () => {
    await rt.exec('create_project', { name: 'alpha' });
    const id = (await rt.exec('create_task', { project_id: 'alpha', title: 'Build it', description: 'Build it' })).created as string;
    const before = await rt.exec('get_task', { task_id: id });
    expect(before).not.toHaveProperty('room_channel_id');
    expect(before).not.toHaveProperty('views');
    await rt.db.taskRooms.save(id, 'CR0001', 'https://example.slack.com/archives/CR0001');
    await rt.db.taskRooms.update(id, { views: ['diff', 'pull_request', 'diff'] });
    expect(await rt.exec('get_task', { task_id: id })).toMatchObject({
      room_channel_id: 'CR0001',
      room_url: 'https://example.slack.com/archives/CR0001',
      views: ['diff', 'pull_request'],
    });
    expect(await rt.db.taskRooms.taskFor('CR0001')).toBe(id);
    await rt.db.taskRooms.update(id, { archivedAt: new Date() });
    expect(await rt.exec('get_task', { task_id: id })).toMatchObject({ room_archived: true });
    await rt.exec('delete_task', { task_id: id });
    expect(await rt.db.taskRooms.get(id)).toBeNull();
  });
});

describe('the task_rooms migration', () => {
  it('gives existing projects the default, approval', async () => {
    const tmp = await makeTempDir('aq-migrate-');
    try {
      const file = path.join(tmp.dir, 'old.db');
      const now = Date.now();
      await databaseBefore(file, 'Migration20261125200500_task_rooms', async (sql) => {
        await sql(`insert into projects (id, name, workspace, created_at, updated_at) values ('p1', 'P1', '/w/p1', ${now}, ${now})`);
      });
      const db = await Database.open(file);
      try {
        expect(await db.projects.get('p1')).toMatchObject({ name: 'P1', taskRooms: 'approval' });
      } finally {
        await db.close();
      }
    } finally {
      await tmp.cleanup();
    }
  });
});
