import { TaskResult } from '../entities';
import type { EmFactory } from '../database';

export interface TaskResultRecord {
  id: number;
  taskId: string;
  agentId: string | null;
  result: string;
  summary: string | null;
  errorMessage: string | null;
  filesChanged: string[] | null;
  /** Null when the agent did not report them: unknown, not zero. */
  tokensUsed: number | null;
  costUsd: number | null;
  sessionId: string | null;
  createdAt: Date;
}

export type NewTaskResult = Omit<TaskResultRecord, 'id' | 'createdAt'>;

export class TaskResultRepository {
  constructor(private readonly em: EmFactory) {}

  /** The newest result of a task, or null when none was recorded. */
  async latest(taskId: string): Promise<TaskResultRecord | null> {
    const r = await this.em().findOne(TaskResult, { task: taskId }, { orderBy: { id: 'desc' } });
    if (!r) return null;
    return {
      id: r.id,
      taskId,
      agentId: r.agentId ?? null,
      result: r.result,
      summary: r.summary ?? null,
      errorMessage: r.errorMessage ?? null,
      filesChanged: r.filesChanged ?? null,
      tokensUsed: r.tokensReported ? r.tokensUsed : null,
      costUsd: r.costReported ? r.costUsd : null,
      sessionId: r.sessionId ?? null,
      createdAt: r.createdAt,
    };
  }

  /** The agent session of the task's newest result that had one (a follow-up resumes it). */
  async lastSessionId(taskId: string): Promise<string | null> {
    const r = await this.em().findOne(
      TaskResult,
      { task: taskId, sessionId: { $ne: null } },
      { orderBy: { id: 'desc' }, fields: ['sessionId'] },
    );
    return r?.sessionId ?? null;
  }

  async add(data: NewTaskResult): Promise<void> {
    const em = this.em();
    em.create(TaskResult, {
      task: data.taskId,
      agentId: data.agentId,
      result: data.result,
      summary: data.summary,
      errorMessage: data.errorMessage,
      filesChanged: data.filesChanged,
      tokensUsed: data.tokensUsed ?? 0,
      tokensReported: data.tokensUsed !== null,
      costUsd: data.costUsd ?? 0,
      costReported: data.costUsd !== null,
      sessionId: data.sessionId,
      createdAt: new Date(),
    });
    await em.flush();
  }
}
