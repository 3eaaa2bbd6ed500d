import { Hook, HookRun } from '../entities';
import type { EmFactory } from '../database';
import type { HookDefinition } from './hook-runs';

export type HookChanges = Partial<
  Pick<HookDefinition, 'enabled' | 'trigger' | 'contextSteps' | 'promptTemplate' | 'cooldownSeconds' | 'llmConfig'>
>;

export interface HookRunRecord {
  id: string;
  triggerReason: string;
  status: string;
  tokensUsed: number;
  skippedReason: string | null;
  startedAt: Date;
  completedAt: Date | null;
}

/** Hook definitions (the engine's run bookkeeping is in hook-runs.ts). */
export class HookRepository {
  constructor(private readonly em: EmFactory) {}

  async create(data: Omit<HookDefinition, 'enabled' | 'lastRunAt' | 'createdAt'>): Promise<void> {
    const em = this.em();
    em.create(Hook, {
      id: data.id,
      project: data.projectId,
      name: data.name,
      trigger: data.trigger,
      contextSteps: data.contextSteps,
      promptTemplate: data.promptTemplate,
      cooldownSeconds: data.cooldownSeconds,
      llmConfig: data.llmConfig,
    });
    await em.flush();
  }

  /** Hooks, oldest first; with `page`, only that slice (see `count`). */
  async list(
    projectId?: string,
    page?: { limit: number; offset: number },
  ): Promise<Array<Pick<HookDefinition, 'id' | 'projectId' | 'name' | 'enabled' | 'trigger' | 'cooldownSeconds'>>> {
    const rows = await this.em().find(Hook, projectId ? { project: projectId } : {}, { orderBy: { createdAt: 'asc', id: 'asc' }, ...page });
    return rows.map((h) => ({
      id: h.id,
      projectId: h.project.id,
      name: h.name,
      enabled: h.enabled,
      trigger: h.trigger,
      cooldownSeconds: h.cooldownSeconds,
    }));
  }

  async count(projectId?: string): Promise<number> {
    return this.em().count(Hook, projectId ? { project: projectId } : {});
  }

  async update(id: string, changes: HookChanges): Promise<boolean> {
    const em = this.em();
    const hook = await em.findOne(Hook, { id });
    if (!hook) return false;
    em.assign(hook, changes);
    await em.flush();
    return true;
  }

  async delete(id: string): Promise<boolean> {
    return (await this.em().nativeDelete(Hook, { id })) > 0;
  }

  async runs(hookId: string, limit: number): Promise<HookRunRecord[]> {
    const rows = await this.em().find(HookRun, { hook: hookId }, { orderBy: { startedAt: 'desc', id: 'desc' }, limit });
    return rows.map((r) => ({
      id: r.id,
      triggerReason: r.triggerReason,
      status: r.status,
      tokensUsed: r.tokensUsed,
      skippedReason: r.skippedReason ?? null,
      startedAt: r.startedAt,
      completedAt: r.completedAt ?? null,
    }));
  }
}
