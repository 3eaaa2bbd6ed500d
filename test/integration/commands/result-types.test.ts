import { type ArgsOf, type InputOf, isCommandError, type ResultOf } from '../../../src/commands/catalog';
import type { setProjectChannel } from '../../../src/commands/channels';
import { createProject } from '../../../src/commands/projects';
import { createTask, getTask } from '../../../src/commands/tasks';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

/**
 * A command's result type is inferred from its definition (`tsc` checks the assignments and the
 * `@ts-expect-error` lines below); at run time the wire result has exactly those snake_case keys.
 */
type TaskResult = ResultOf<typeof getTask>;

// Compile-time checks: each line fails `tsc` if the inferred types drift.
const typedTitle: TaskResult['title'] = 'a title';
// @ts-expect-error retry_count is a number, not text
const wrongRetry: TaskResult['retry_count'] = 'three';
// @ts-expect-error results keep the spec's snake_case keys, never camelCase
const camel: TaskResult['retryCount'] = 1;
const input: InputOf<typeof setProjectChannel> = { project_id: 'p', channel_id: 'C1' };
const linked: ResultOf<typeof setProjectChannel>['status'] = 'linked';
// @ts-expect-error get_task takes task_id
const badArgs: ArgsOf<typeof getTask> = { id: 'x' };

describe('typed command results', () => {
  let rt: TestRuntime;
  beforeAll(async () => {
    rt = await makeTestRuntime();
  });
  afterAll(() => rt.cleanup());

  it('reads typed fields from a real result without casting', async () => {
    expect([typedTitle, wrongRetry, camel, input.channel_id, linked, badArgs]).toHaveLength(6);
    const handler = rt.handler;
    const created = await handler.executeCommand(createProject, { name: 'Typed' });
    if (isCommandError(created)) throw new Error(created.error);
    const workspace: string = created.workspace;
    expect(workspace.endsWith('typed')).toBe(true);

    const queued = await handler.executeCommand(createTask, { project_id: created.created, title: 'T', description: 'D' });
    if (isCommandError(queued)) throw new Error(queued.error);
    const task = await handler.executeCommand(getTask, { task_id: queued.created });
    if (isCommandError(task)) throw new Error(task.error);
    const retries: number = task.retry_count;
    expect({ title: task.title, retries, approval: task.requires_approval }).toEqual({ title: 'T', retries: 0, approval: false });
    expect(Object.keys(task)).toContain('max_retries');

    const missing = await handler.executeCommand(getTask, { task_id: 'ghost' });
    expect(isCommandError(missing) && missing.error).toBe("Task 'ghost' not found.");
  });
});
