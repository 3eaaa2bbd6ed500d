import path from 'node:path';
import { Database } from '../../../src/db/database';
import { databaseBefore } from '../../support/older-database';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { putTask } from '../../support/task-fixtures';
import { makeTempDir } from '../../support/tmp';

const slack = (userId: string) => ({ source: 'slack' as const, userId, channelId: 'CELSEWHERE' });

/**
 * The commands a task button runs (stop, restart, approve, skip) and the other task-changing
 * commands follow the steering rule of the task's project, on every surface; a project may also
 * leave approvals to each task's requester and the admins.
 */
describe('who may act on a task', () => {
  let rt: TestRuntime;
  let id: string;
  beforeEach(async () => {
    rt = await makeTestRuntime({ AQ_ADMINS: 'UADMIN' });
    await rt.exec('create_project', { name: 'alpha' });
    await rt.exec('set_project_steerers', { project_id: 'alpha', user_ids: ['USTEER'] });
    id = (await rt.exec('create_task', { project_id: 'alpha', title: 'Build it', description: 'Build it' })).created as string;
  });
  afterEach(() => rt.cleanup());

  const as = (userId: string, name: string, args: Record<string, unknown>) => rt.handler.executeAny(name, args, slack(userId));

  it('refuses every task-changing command to someone who may not steer the project, and changes nothing', async () => {
    const refusal = { error: "Only the steerers of project 'alpha' or admins (AQ_ADMINS) may restart its tasks; ask one of them." };
    await putTask(rt.db, id, 'FAILED');
    expect(await as('UOTHER', 'restart_task', { task_id: id })).toEqual(refusal);
    expect(await as('UOTHER', 'skip_task', { task_id: id })).toEqual({ error: expect.stringContaining('may skip its tasks') });
    expect(await as('UOTHER', 'edit_task', { task_id: id, title: 'Mine' })).toEqual({ error: expect.stringContaining('may edit') });
    expect(await as('UOTHER', 'delete_task', { task_id: id })).toEqual({ error: expect.stringContaining('may delete') });
    expect(await as('UOTHER', 'set_task_status', { task_id: id, status: 'COMPLETED' })).toEqual({
      error: expect.stringContaining('may set the status of'),
    });
    await putTask(rt.db, id, 'AWAITING_APPROVAL');
    expect(await as('UOTHER', 'approve_task', { task_id: id })).toEqual({ error: expect.stringContaining('may approve') });
    await putTask(rt.db, id, 'IN_PROGRESS');
    expect(await as('UOTHER', 'stop_task', { task_id: id })).toEqual({ error: expect.stringContaining('may stop') });
    expect(await as('UOTHER', 'pause_project', { project_id: 'alpha' })).toEqual({ error: expect.stringContaining('may pause it') });
    expect(await rt.exec('get_task', { task_id: id })).toMatchObject({ title: 'Build it', status: 'IN_PROGRESS' });
    expect(await rt.exec('list_projects')).toMatchObject({ projects: [{ id: 'alpha', status: 'ACTIVE' }] });
  });

  it('lets the steerers, the admins and local callers act; a missing task is still "not found"', async () => {
    await putTask(rt.db, id, 'FAILED');
    expect(await as('USTEER', 'restart_task', { task_id: id })).toMatchObject({ restarted: id });
    await putTask(rt.db, id, 'FAILED');
    expect(await as('UADMIN', 'skip_task', { task_id: id })).toMatchObject({ skipped: id });
    await putTask(rt.db, id, 'AWAITING_APPROVAL');
    expect(await as('USTEER', 'approve_task', { task_id: id })).toMatchObject({ approved: id });
    expect(await as('UOTHER', 'restart_task', { task_id: 'no-such-task' })).toEqual({ error: expect.stringMatching(/not found/) });
    expect(await rt.exec('edit_task', { task_id: id, title: 'Renamed' })).toEqual({ updated: id, fields: ['title'] });
  });

  it('with approvals_by_requester, only the requester or an admin approves; only an admin changes the rule', async () => {
    expect(await as('USTEER', 'edit_project', { project_id: 'alpha', approvals_by_requester: true })).toEqual({
      error: "Only admins (AQ_ADMINS) may change who approves a project's tasks; ask one of them.",
    });
    expect(await as('UADMIN', 'edit_project', { project_id: 'alpha', approvals_by_requester: true })).toEqual({
      updated: 'alpha',
      fields: ['approvals_by_requester'],
    });
    expect(await rt.exec('list_projects')).toMatchObject({ projects: [{ id: 'alpha', approvals_by_requester: true }] });

    const asked = (await as('USTEER', 'create_task', { project_id: 'alpha', title: 'Mine', description: 'd' })).created as string;
    expect(await rt.exec('get_task', { task_id: asked })).toMatchObject({ requested_by: 'USTEER' });
    await putTask(rt.db, asked, 'AWAITING_APPROVAL');
    await putTask(rt.db, id, 'AWAITING_APPROVAL');
    // id was queued locally: it has no requester, so only an admin approves it.
    expect(await as('USTEER', 'approve_task', { task_id: id })).toEqual({
      error:
        "Project 'alpha' leaves approvals to each task's requester and the admins: only the person who asked for it or an admin (AQ_ADMINS) may approve this task.",
    });
    expect(await rt.handler.taskRefusal(id, 'approve', slack('USTEER'))).toMatch(/leaves approvals to each task's requester/);
    expect(await as('UADMIN', 'approve_task', { task_id: id })).toMatchObject({ approved: id });
    expect(await as('UADMIN', 'set_project_steerers', { project_id: 'alpha', user_ids: ['USTEER', 'UOTHER'] })).toMatchObject({});
    expect(await as('UOTHER', 'approve_task', { task_id: asked })).toEqual({
      error: expect.stringContaining('only the person who asked for it (Slack user USTEER)'),
    });
    expect(await as('USTEER', 'approve_task', { task_id: asked })).toMatchObject({ approved: asked });
  });

  it('create_project takes the option; it is off by default and not shown then', async () => {
    expect(await rt.exec('create_project', { name: 'beta', approvals_by_requester: true })).toMatchObject({
      created: 'beta',
      approvals_by_requester: true,
    });
    const listed = (await rt.exec('list_projects')) as { projects: Array<Record<string, unknown>> };
    expect(listed.projects.find((p) => p.id === 'alpha')).not.toHaveProperty('approvals_by_requester');
    expect(listed.projects.find((p) => p.id === 'beta')).toMatchObject({ approvals_by_requester: true });
  });
});

describe('the approvals_by_requester migration', () => {
  it('keeps existing projects and tasks, with the rule off and no requester', async () => {
    const tmp = await makeTempDir('aq-migrate-');
    try {
      const file = path.join(tmp.dir, 'old.db');
      const now = Date.now();
      await databaseBefore(file, 'Migration20261125170000_approvals_by_requester', async (sql) => {
        await sql(`insert into projects (id, name, workspace, created_at, updated_at) values ('p1', 'P1', '/w/p1', ${now}, ${now})`);
        await sql(
          `insert into tasks (id, project_id, title, description, created_at, updated_at) values ('t1', 'p1', 'Old', 'd', ${now}, ${now})`,
        );
      });
      const db = await Database.open(file);
      try {
        expect(await db.projects.get('p1')).toMatchObject({ name: 'P1', approvalsByRequester: false });
        expect(await db.tasks.get('t1')).toMatchObject({ title: 'Old', requestedBy: null });
      } finally {
        await db.close();
      }
    } finally {
      await tmp.cleanup();
    }
  });
});
