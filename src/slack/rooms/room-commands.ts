/**
 * The slash commands of a task's room (agents.conversations.setCommands; at most 10 a room,
 * names of 1-31 characters without the slash). Each runs a catalog command on the room's task:
 * listeners/commands/room-commands.ts.
 */
export const ROOM_COMMANDS = [
  { name: 'approve', description: 'Approve the task (merges its work)' },
  { name: 'request-changes', description: 'Send the agent the changes you want', argument_hint: 'what to change' },
  { name: 'stop', description: 'Stop the task' },
  { name: 'restart', description: 'Run the task again' },
  { name: 'skip', description: 'Skip the task (its dependents go ahead)' },
  { name: 'budget', description: "The project's budget: used, limit, resets" },
  { name: 'diff', description: 'The files the task changed, with added and removed lines' },
  { name: 'plan', description: "The plan's steps, and the edits made in its canvas, shown before they apply" },
] as const;

export type RoomCommandName = (typeof ROOM_COMMANDS)[number]['name'];

/** The catalog command each room command runs, and its arguments beyond the task. */
export function catalogCommandFor(name: RoomCommandName, text: string): { command: string; args: Record<string, unknown>; of?: 'project' } {
  switch (name) {
    case 'approve':
      return { command: 'approve_task', args: {} };
    case 'request-changes':
      return { command: 'message_task', args: { text } };
    case 'stop':
      return { command: 'stop_task', args: {} };
    case 'restart':
      return { command: 'restart_task', args: {} };
    case 'skip':
      return { command: 'skip_task', args: {} };
    case 'budget':
      return { command: 'get_budget', args: {}, of: 'project' };
    case 'diff':
      return { command: 'get_task_diff', args: { summary: true } };
    case 'plan':
      // The listener reads the plan canvas first; this is the answer when the plan has none.
      return { command: 'get_plan', args: {} };
  }
}
