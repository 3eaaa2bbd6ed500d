/** Why a task operation (stop, skip, restart, approve, set status) did not happen. */
export type TaskOperationErrorKind = 'not_found' | 'wrong_status' | 'conflict';

/**
 * A task operation refused, with a sentence for people. `not_found`: no such task;
 * `wrong_status`: the task's status does not allow it; `conflict`: the task changed under us
 * (another process or click got there first), so looking again is the answer.
 */
export class TaskOperationError extends Error {
  constructor(
    readonly kind: TaskOperationErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'TaskOperationError';
  }
}
