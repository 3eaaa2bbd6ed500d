import { z } from 'zod';
import { nameToId } from '../db/ids';
import { CommandError, defineCommand } from './catalog';
import { nextOffset, pageFields, pageOf, type ListPaging } from './paging';
import { optional, requiredText } from './schema';

export const AGENT_TYPES = ['claude'] as const;
const AGENT_LIST: ListPaging = { key: 'agents', defaultLimit: 100, maxLimit: 500 };

export const listAgents = defineCommand({
  name: 'list_agents',
  group: 'agents',
  kind: 'read',
  description: `List agents with their type, state and current task, oldest first, ${AGENT_LIST.defaultLimit} a page; total counts them all and next_offset asks for the next page.`,
  input: z.object(pageFields(AGENT_LIST)),
  list: AGENT_LIST,
  async run(args, ctx) {
    const page = pageOf(args, AGENT_LIST.defaultLimit);
    const [agents, total] = await Promise.all([ctx.db.agents.list(page), ctx.db.agents.count()]);
    return {
      agents: agents.map((a) => ({ id: a.id, name: a.name, type: a.type, state: a.state, current_task: a.currentTask })),
      total,
      next_offset: nextOffset(page, agents.length, total),
    };
  },
});

export const createAgent = defineCommand({
  name: 'create_agent',
  group: 'agents',
  kind: 'change',
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
