import type { EmFactory } from '../database';
import { storableJson, storedFlag } from './column-values';
import type { HookDefinition } from './hook-runs';
import { changes as changedRows, columnAssignments, type FieldColumn, fieldColumns, oldestFirst } from './run-sql';

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

type HookListItem = Pick<HookDefinition, 'id' | 'projectId' | 'name' | 'enabled' | 'trigger' | 'cooldownSeconds'>;

interface HookListRow {
  id: string;
  project_id: string;
  name: string;
  enabled: boolean | number;
  trigger: string;
  cooldown_seconds: number | string;
}

/** The fields an update may change and their columns (JSON columns stored as their text). */
const HOOK_FIELDS: ReadonlyArray<FieldColumn<HookChanges>> = [
  ['enabled', 'enabled'],
  ['trigger', '"trigger"', JSON.stringify],
  ['contextSteps', 'context_steps', JSON.stringify],
  ['promptTemplate', 'prompt_template'],
  ['cooldownSeconds', 'cooldown_seconds'],
  ['llmConfig', 'llm_config', storableJson],
];

/** Hook definitions, in plain statements (the engine's run bookkeeping is in hook-runs.ts). */
export class HookRepository {
  constructor(private readonly em: EmFactory) {}

  async create(data: Omit<HookDefinition, 'enabled' | 'lastRunAt' | 'createdAt'>): Promise<void> {
    const now = Date.now();
    await changedRows(
      this.em(),
      `insert into hooks (id, project_id, name, enabled, "trigger", context_steps, prompt_template, cooldown_seconds, llm_config, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        data.id,
        data.projectId,
        data.name,
        true,
        JSON.stringify(data.trigger),
        JSON.stringify(data.contextSteps),
        data.promptTemplate,
        data.cooldownSeconds,
        storableJson(data.llmConfig),
        now,
        now,
      ],
    );
  }

  /** Hooks, oldest first; with `page`, only that slice (see `count`). */
  async list(projectId?: string, page?: { limit: number; offset: number }): Promise<HookListItem[]> {
    const rows = await oldestFirst<HookListRow>(
      this.em(),
      { table: 'hooks', columns: 'id, project_id, name, enabled, cast("trigger" as text) as "trigger", cooldown_seconds' },
      projectId ? 'project_id = ?' : '',
      projectId ? [projectId] : [],
      page,
    );
    return rows.map((h) => ({
      id: h.id,
      projectId: h.project_id,
      name: h.name,
      enabled: storedFlag(h.enabled),
      trigger: JSON.parse(h.trigger) as HookDefinition['trigger'],
      cooldownSeconds: Number(h.cooldown_seconds),
    }));
  }

  async count(projectId?: string): Promise<number> {
    const rows = await this.em().execute<Array<{ n: number | string }>>(
      `select count(*) as n from hooks${projectId ? ' where project_id = ?' : ''}`,
      projectId ? [projectId] : [],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** Writes the given fields; false when there is no such hook. */
  async update(id: string, changes: HookChanges): Promise<boolean> {
    const set = columnAssignments([...fieldColumns(changes, HOOK_FIELDS), ['updated_at', Date.now()]]);
    return (await changedRows(this.em(), `update hooks set ${set.sql} where id = ?`, [...set.params, id])) > 0;
  }

  async delete(id: string): Promise<boolean> {
    return (await changedRows(this.em(), 'delete from hooks where id = ?', [id])) > 0;
  }
}
