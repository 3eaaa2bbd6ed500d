// @database-dependent: of two processes moving a task at once, the database decides who wins.
import { Database } from '../../../src/db/database';
import { EventLog } from '../../../src/orchestrator/events';
import { TaskControl } from '../../../src/orchestrator/task-control';
import { TaskOperationError, type TaskOperationErrorKind } from '../../../src/orchestrator/task-errors';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { putTask } from '../../support/task-fixtures';

/** The refusal an operation threw: its kind and its sentence. */
async function refusal(operation: Promise<unknown>): Promise<{ kind: TaskOperationErrorKind; message: string }> {
  try {
    await operation;
  } catch (err) {
    if (err instanceof TaskOperationError) return { kind: err.kind, message: err.message };
    throw err;
  }
  throw new Error('The operation was not refused');
}

describe('task operations refuse with typed errors', () => {
  let rt: TestRuntime;
  let control: TaskControl;
  let taskId: string;
  beforeEach(async () => {
    rt = await makeTestRuntime();
    await rt.db.projects.create({ id: 'p', name: 'p', workspace: rt.home });
    control = new TaskControl(rt.db, rt.events);
    taskId = (await rt.db.tasks.create({ projectId: 'p', title: 'T', description: 'd' })).id;
  });
  afterEach(() => rt.cleanup());

  it('not_found for a task that does not exist, for every operation', async () => {
    const expected = { kind: 'not_found', message: "Task 'ghost' not found." };
    expect(await refusal(control.stopTask('ghost'))).toEqual(expected);
    expect(await refusal(control.skipTask('ghost'))).toEqual(expected);
    expect(await refusal(control.restartTask('ghost'))).toEqual(expected);
    expect(await refusal(control.approveTask('ghost'))).toEqual(expected);
    expect(await refusal(control.setTaskStatus('ghost', 'READY'))).toEqual(expected);
  });

  it('wrong_status when the task is not where the operation starts, leaving it as it was', async () => {
    expect(await refusal(control.stopTask(taskId))).toEqual({
      kind: 'wrong_status',
      message: `Task '${taskId}' is READY, not IN_PROGRESS: only running tasks can be stopped.`,
    });
    expect(await refusal(control.skipTask(taskId))).toEqual({
      kind: 'wrong_status',
      message: `Task '${taskId}' is READY: only BLOCKED or FAILED tasks can be skipped.`,
    });
    expect(await refusal(control.approveTask(taskId))).toMatchObject({
      kind: 'wrong_status',
      message: expect.stringContaining('not AWAITING_APPROVAL'),
    });
    await putTask(rt.db, taskId, 'IN_PROGRESS');
    expect(await refusal(control.restartTask(taskId))).toMatchObject({
      kind: 'wrong_status',
      message: expect.stringContaining('Stop it first'),
    });
    expect((await rt.db.tasks.get(taskId))?.status).toBe('IN_PROGRESS');
  });

  it('of two processes approving at once, one approves and the other is told it lost', async () => {
    await putTask(rt.db, taskId, 'AWAITING_APPROVAL');
    const other = await Database.open(rt.config.database);
    try {
      const results = await Promise.allSettled([
        control.approveTask(taskId, 'U1'),
        new TaskControl(other, new EventLog(other, () => undefined)).approveTask(taskId, 'U2'),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(lost.reason).toBeInstanceOf(TaskOperationError);
      // Lost the race mid-move (conflict), or read the task after the winner moved it.
      expect(['conflict', 'wrong_status']).toContain(lost.reason.kind);
    } finally {
      await other.close();
    }
    expect((await rt.db.events.recent(5)).filter((e) => e.type === 'task_completed')).toHaveLength(1);
  });

  it('commands turn the refusal into the plain sentence', async () => {
    expect(await rt.exec('stop_task', { task_id: 'ghost' })).toEqual({ error: "Task 'ghost' not found." });
    expect(await rt.exec('skip_task', { task_id: taskId })).toEqual({
      error: `Task '${taskId}' is READY: only BLOCKED or FAILED tasks can be skipped.`,
    });
    expect(await rt.exec('set_task_status', { task_id: 'ghost', status: 'READY' })).toEqual({ error: "Task 'ghost' not found." });
  });
});
