import { z } from 'zod';
import { nameToId } from '../db/ids';
import { CommandError, defineCommand } from './catalog';
import { optional, requiredText } from './schema';

export const AGENT_TYPES = ['claude'] as const;

export const listAgents = defineCommand({
  name: 'list_agents',
  group: 'agents',
  description: 'List agents with their type, state and current task.',
  input: z.object({}),
  readOnly: true,
  async run(_args, ctx) {
    const agents = await ctx.db.agents.list();
    return {
      agents: agents.map((a) => ({ id: a.id, name: a.name, type: a.type, state: a.state, current_task: a.currentTask })),
    };
  },
});

export const createAgent = defineCommand({
  name: 'create_agent',
  group: 'agents',
  description: 'Add an agent that picks up ready tasks. The id is the name lowercased with spaces as hyphens.',
  input: z.object({
    name: requiredText('Agent name'),
    agent_type: optional(z.enum(AGENT_TYPES).describe('Kind of agent; claude runs Claude Code')),
    repo_id: optional(requiredText('Repo the agent is tied to')),
  }),
  async run({ name, agent_type, repo_id }, ctx) {
    const id = nameToId(name);
    if (repo_id && !(await ctx.db.repos.get(repo_id))) throw new CommandError(`Repo '${repo_id}' not found.`);
    if (await ctx.db.agents.get(id)) throw new CommandError(`Agent '${id}' already exists. Pick another name.`);
    await ctx.db.agents.create({ id, name, type: agent_type ?? 'claude', repoId: repo_id ?? null });
    await ctx.events.emit('agent_created', { agentId: id, payload: { name } });
    return { created: id, name, ...(repo_id && { repo_id }) };
  },
});

export const agentCommands = [listAgents, createAgent];
