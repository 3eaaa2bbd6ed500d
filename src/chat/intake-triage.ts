import { z } from 'zod';
import type { Actor } from '../commands/catalog';
import type { CommandHandler } from '../commands/handler';
import type { ChatProvider } from '../model/provider';
import { cutWhole } from '../util/whole-characters';

/** What triage made of a message posted in an intake channel. */
export type TriageVerdict =
  | { verdict: 'actionable'; kind: string; title: string; description: string; priority?: number }
  | { verdict: 'duplicate'; taskId: string; title: string }
  | { verdict: 'noise'; kind: string };

const RECENT_TASKS = 100;
const TRIAGE_TOOL = 'triage';

const triageInput = z.object({
  kind: z.enum(['bug', 'feature', 'chore', 'question', 'chatter', 'duplicate']),
  title: z.string().optional(),
  description: z.string().optional(),
  priority: z.number().int().optional(),
  duplicate_of: z.string().optional(),
});

const SYSTEM = `You triage messages posted in a team's Slack channel for a queue of coding-agent tasks.
Decide whether the message asks for work a coding agent can do: a bug, a small feature or a chore. Questions, chatter, thanks and status talk are not work.
If one of the project's existing tasks (listed below the message) already covers it, it is a duplicate: give that task's id in duplicate_of.
For work, write a short imperative title and a description an engineer can act on, from the message alone; do not invent details.
Answer only by calling the ${TRIAGE_TOOL} tool once.`;

const TOOL = {
  name: TRIAGE_TOOL,
  description: 'Your verdict on the message.',
  inputSchema: {
    type: 'object',
    properties: {
      kind: { type: 'string', enum: ['bug', 'feature', 'chore', 'question', 'chatter', 'duplicate'] },
      title: { type: 'string', description: 'For bug, feature or chore: the task title (under 80 characters).' },
      description: { type: 'string', description: 'For bug, feature or chore: what to do and how to tell it is done.' },
      priority: { type: 'integer', description: 'Lower runs first; 100 is normal, 50 urgent.' },
      duplicate_of: { type: 'string', description: 'For duplicate: the id of the existing task.' },
    },
    required: ['kind'],
  },
};

/**
 * Asks the model what a message is, with the project's open and recent tasks (read through the
 * list_tasks command) so a repeated report links the earlier task instead of making a second.
 */
export async function triageIntakeMessage(
  deps: { provider: ChatProvider; handler: CommandHandler },
  input: { projectId: string; text: string; actor: Actor },
): Promise<TriageVerdict> {
  const listed = await deps.handler.execute('list_tasks', { project_id: input.projectId, limit: RECENT_TASKS }, input.actor);
  const tasks = 'error' in listed ? [] : listed.tasks;
  const catalog = tasks.map((t) => `- ${t.id} [${t.status}] ${t.title}`).join('\n') || '(none)';
  const response = await deps.provider.createMessage({
    system: SYSTEM,
    tools: [TOOL],
    maxTokens: 1024,
    messages: [
      {
        role: 'user',
        content: `<message>\n${input.text}\n</message>\n\nThe project's open and recent tasks:\n${catalog}`,
      },
    ],
  });
  const call = response.toolUses.find((u) => u.name === TRIAGE_TOOL);
  const parsed = triageInput.safeParse(call?.input);
  if (!parsed.success) return { verdict: 'noise', kind: 'unclear' };
  const v = parsed.data;
  if (v.kind === 'duplicate' || v.duplicate_of) {
    const earlier = tasks.find((t) => t.id === v.duplicate_of);
    // A duplicate of a task that is not in the list is not trusted: it is triaged as new work.
    if (earlier) return { verdict: 'duplicate', taskId: earlier.id, title: earlier.title };
    if (v.kind === 'duplicate') return { verdict: 'noise', kind: 'duplicate' };
  }
  if (v.kind === 'bug' || v.kind === 'feature' || v.kind === 'chore') {
    const title = v.title?.trim() || cutWhole(input.text.split('\n')[0], 80);
    return {
      verdict: 'actionable',
      kind: v.kind,
      title,
      description: v.description?.trim() || input.text,
      ...(v.priority !== undefined && { priority: v.priority }),
    };
  }
  return { verdict: 'noise', kind: v.kind };
}
