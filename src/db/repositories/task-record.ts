import type { Task, TaskStatus } from '../entities';

/**
 * A task as repositories, commands and the orchestrator see it: the entity's own columns (one
 * declaration, in entities/task.ts), unset ones as null, and the project as its id.
 */
export type TaskRecord = { [K in Exclude<keyof Task, 'project'>]-?: Exclude<Task[K], undefined> } & { projectId: string };

/** The fields a caller may set when creating a task. */
export interface NewTask {
  projectId: string;
  title: string;
  description: string;
  status?: TaskStatus;
  priority?: number;
  requiresApproval?: boolean;
  repoId?: string | null;
  branchName?: string | null;
  parentTaskId?: string | null;
  isPlanSubtask?: boolean;
  planDepth?: number;
  planSource?: string | null;
  autoTasks?: boolean;
  preferredWorkspaceId?: string | null;
  maxRetries?: number;
  sourceUrl?: string | null;
  requestedBy?: string | null;
  backend?: string | null;
}

/** Field changes; the status is not among them; it moves only through `transition`. */
export type TaskUpdate = Partial<Omit<TaskRecord, 'id' | 'projectId' | 'status' | 'createdAt' | 'updatedAt'>>;

export function toTaskRecord(t: Task): TaskRecord {
  return {
    id: t.id,
    projectId: t.project.id,
    title: t.title,
    description: t.description,
    status: t.status,
    priority: t.priority,
    assignedAgent: t.assignedAgent ?? null,
    retryCount: t.retryCount,
    maxRetries: t.maxRetries,
    requiresApproval: t.requiresApproval,
    prUrl: t.prUrl ?? null,
    repoId: t.repoId ?? null,
    branchName: t.branchName ?? null,
    parentTaskId: t.parentTaskId ?? null,
    isPlanSubtask: t.isPlanSubtask,
    planDepth: t.planDepth,
    planSource: t.planSource ?? null,
    autoTasks: t.autoTasks,
    preferredWorkspaceId: t.preferredWorkspaceId ?? null,
    workspaceId: t.workspaceId ?? null,
    resumeAfter: t.resumeAfter ?? null,
    pauseReason: t.pauseReason ?? null,
    sourceUrl: t.sourceUrl ?? null,
    requestedBy: t.requestedBy ?? null,
    skipped: t.skipped,
    backend: t.backend ?? null,
    currentRunId: t.currentRunId ?? null,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
    startedAt: t.startedAt ?? null,
    completedAt: t.completedAt ?? null,
  };
}
