/**
 * The commands hooks and automations run, as typed calls. The orchestrator sits below the
 * catalog and cannot import it; `src/commands/orchestrator-commands.ts` implements this port
 * with the catalog's own commands, so renaming an argument or a result key of `create_task` or
 * `read_file` fails the type check there instead of reaching a hook as `undefined`.
 */
export type Refused = { error: string };

/** A task as `create_task` takes it from a hook or an automation. */
export interface TaskRequest {
  project_id: string;
  title: string;
  description: string;
  priority?: number;
  requires_approval?: boolean;
  depends_on?: string[];
}

/** Who a task is made for: an intake's reporter and the thread they asked in. */
export interface RequestedFor {
  userId?: string;
  sourceUrl?: string;
}

export interface CommandPort {
  createTask(task: TaskRequest, requestedFor?: RequestedFor): Promise<{ created: string } | Refused>;
  /** A file through `read_file`'s path checks; `path` is absolute. */
  readFile(file: { path: string; max_lines: number }): Promise<{ content: string; path: string } | Refused>;
  /** A hook's named read-only query (its `db_query` step), as JSON text, or why there is none. */
  namedQuery(name: string, params: Record<string, unknown>, projectId: string): Promise<{ content: string } | Refused>;
}

export function refused(result: object): result is Refused {
  return typeof (result as { error?: unknown }).error === 'string';
}
