import { z } from 'zod';
import { AGENT_BACKENDS } from '../agents/backends';
import { CommandError, defineCommand } from './catalog';
import { idFromName } from './derived-ids';
import { nextOffset, pageFields, pageOf, type ListPaging } from './paging';
import { optional, requiredText } from './schema';
import { settleAll } from '../util/settle-all';

export const AGENT_TYPES = ['claude'] as const;
const AGENT_LIST: ListPaging = { key: 'agents', defaultLimit: 100, maxLimit: 500 };

export const listAgents = defineCommand({
  name: 'list_agents',
  group: 'agents',
  kind: 'read',
  description: `List agents with their type, state and current task, oldest first, ${AGENT_LIST.defaultLimit} a page; total counts them all and next_offset asks for the next page.`,
  input: () => z.object(pageFields(AGENT_LIST)),
  list: AGENT_LIST,
  async run(args, ctx) {
    const page = pageOf(args, AGENT_LIST.defaultLimit);
    const [agents, total] = await settleAll([ctx.db.agents.list(page), ctx.db.agents.count()]);
    return {
      agents: agents.map((a) => ({
        id: a.id,
        name: a.name,
        type: a.type,
        state: a.state,
        current_task: a.currentTask,
        backend: a.backend,
        ...(a.profile && { profile: a.profile }),
      })),
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
  input: () =>
    z.object({
      name: requiredText('Agent name'),
      agent_type: optional(z.enum(AGENT_TYPES).describe('Kind of agent; claude runs Claude Code')),
      repo_id: optional(requiredText('Repo the agent is tied to')),
      backend: optional(z.enum(AGENT_BACKENDS).describe('What the agent runs: claude-code (default) or acp, an ACP agent from a profile')),
      profile: optional(requiredText('For backend acp: the agent profile that starts it (list_agent_profiles)')),
    }),
  async run({ name, agent_type, repo_id, backend, profile }, ctx) {
    const id = idFromName(name, 'Agent id', { folder: false });
    if (repo_id && !(await ctx.db.repos.get(repo_id))) throw new CommandError(`Repo '${repo_id}' not found.`);
    const chosen = backend ?? 'claude-code';
    if (chosen === 'acp' && !profile) {
      throw new CommandError('An acp agent needs a profile: give profile=<name> (list_agent_profiles shows the configured ones).');
    }
    if (chosen !== 'acp' && profile)
      throw new CommandError('Only acp agents take a profile: give backend=acp with it, or leave profile out.');
    if (profile && !ctx.config.agents.profiles.some((p) => p.name === profile)) {
      throw new CommandError(`No agent profile is named '${profile}': list_agent_profiles shows the configured ones.`);
    }
    if (await ctx.db.agents.get(id)) throw new CommandError(`Agent '${id}' already exists. Pick another name.`);
    await ctx.db.agents.create({
      id,
      name,
      type: chosen === 'acp' ? 'acp' : (agent_type ?? 'claude'),
      repoId: repo_id ?? null,
      backend: chosen,
      profile: profile ?? null,
    });
    await ctx.events.emit('agent_created', { agentId: id, payload: { name, backend: chosen, ...(profile && { profile }) } });
    return { created: id, name, ...(repo_id && { repo_id }), ...(backend && { backend }), ...(profile && { profile }) };
  },
});

export const listAgentProfiles = defineCommand({
  name: 'list_agent_profiles',
  group: 'agents',
  // A profile is a command line the app runs: only admins see them.
  kind: 'admin',
  description:
    'List the configured ACP agent profiles (AQ_AGENT_PROFILES): the command that starts each agent, the names of the environment variables it is given, and whether it runs in the sandbox.',
  input: () => z.object({}),
  async run(_args, ctx) {
    return {
      profiles: ctx.config.agents.profiles.map((p) => ({
        name: p.name,
        command: p.command,
        args: p.args,
        env: Object.keys(p.env),
        sandbox: p.sandbox,
        writable: p.writable,
      })),
    };
  },
});

export const agentCommands = [listAgents, createAgent, listAgentProfiles];
