import type { CommandPort, RequestedFor } from '../orchestrator/command-port';
import type { AnyCommand, CommandOutcome, CommandResult, InputOf } from './catalog';
import { readFileCommand } from './files';
import type { CommandName } from './index';
import { createTask } from './tasks';

/** Runs a command by name as the hook or automation (the handler's `executeAny`, with its actor). */
export type ExecuteByName = (name: string, args: Record<string, unknown>, requestedFor?: RequestedFor) => Promise<CommandResult>;

async function run<C extends AnyCommand>(
  execute: ExecuteByName,
  command: C,
  args: InputOf<C>,
  requestedFor?: RequestedFor,
): Promise<CommandOutcome<C>> {
  return (await execute(command.name, args as Record<string, unknown>, requestedFor)) as CommandOutcome<C>;
}

type Params = Record<string, unknown>;

/**
 * The named read-only queries a hook's `db_query` step may run, each a command of the catalog
 * (`CommandName`: a renamed command fails the type check here). Their values come from the
 * hook's JSON, so the command checks them as it checks anyone's.
 */
const NAMED_QUERIES: Record<string, (p: Params, projectId: string) => [CommandName, Params]> = {
  recent_events: (p) => ['get_recent_events', { limit: p.limit ?? 20 }],
  failed_tasks: (p, projectId) => ['list_tasks', { project_id: p.project_id ?? projectId, status: 'FAILED' }],
  blocked_tasks: (p, projectId) => ['list_tasks', { project_id: p.project_id ?? projectId, status: 'BLOCKED' }],
  project_tasks_by_status: (p, projectId) => ['list_tasks', { project_id: p.project_id ?? projectId, status: p.status }],
  task_detail: (p) => ['get_task', { task_id: p.task_id }],
  task_result: (p) => ['get_task_result', { task_id: p.task_id }],
  hook_runs: (p) => ['list_hook_runs', { hook_id: p.hook_id, limit: p.limit ?? 10 }],
  chain_health: (p, projectId) => ['get_chain_health', { project_id: p.project_id ?? projectId }],
  status: () => ['get_status', {}],
};

export const NAMED_QUERY_NAMES: readonly string[] = Object.keys(NAMED_QUERIES);

/** The orchestrator's `CommandPort` over the catalog: what hooks and automations run. */
export function orchestratorCommands(execute: ExecuteByName): CommandPort {
  return {
    createTask: (task, requestedFor) => run(execute, createTask, task, requestedFor),
    readFile: (file) => run(execute, readFileCommand, file),
    async namedQuery(name, params, projectId) {
      const query = Object.hasOwn(NAMED_QUERIES, name) ? NAMED_QUERIES[name] : undefined;
      if (!query) {
        return { error: `Unknown query ${JSON.stringify(name)}. Known queries: ${NAMED_QUERY_NAMES.join(', ')}.` };
      }
      const [command, args] = query(params, projectId);
      return { content: JSON.stringify(await execute(command, args)) };
    },
  };
}
