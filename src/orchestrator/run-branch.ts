import type { TaskRecord } from '../db/repositories/tasks';
import { branchNameForTask } from '../git/branch-names';
import type { RunnerDeps } from './runner-deps';
import { errorMessage } from '../util/error-message';

/** The task's branch, checked out. Plan steps continue on their parent's branch. */
export async function prepareBranch(
  deps: Pick<RunnerDeps, 'db' | 'git' | 'log'>,
  task: TaskRecord,
  path: string,
): Promise<{ branch: string | null; defaultBranch: string | null }> {
  if (!(await deps.git.isRepo(path).catch(() => false))) return { branch: null, defaultBranch: null };
  const defaultBranch = await deps.git.detectDefaultBranch(path);
  let branch = task.branchName;
  let reuse = !!branch;
  if (task.isPlanSubtask && task.parentTaskId) {
    const parent = await deps.db.tasks.get(task.parentTaskId);
    if (parent?.branchName) {
      branch = parent.branchName;
      reuse = true;
    }
  }
  branch ??= branchNameForTask(task.id, task.title);
  try {
    await deps.git.prepareTaskBranch(path, branch, { defaultBranch, reuse });
  } catch (err) {
    // The agent can still work; the branch problem shows up again at merge time.
    deps.log(`Preparing branch ${branch} for ${task.id} failed: ${errorMessage(err)}`);
  }
  return { branch, defaultBranch };
}
