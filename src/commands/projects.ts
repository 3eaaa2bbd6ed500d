import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { LANDING_MODES, TASK_ROOMS_SETTINGS } from '../db/value-sets';
import { OVERLAP_POLICIES } from '../db/value-sets';
import type { ProjectRecord } from '../db/repositories/projects';
import { CommandError, defineCommand, type CommandContext } from './catalog';
import { idFromName } from './derived-ids';
import { nextOffset, pageFields, pageOf, type ListPaging } from './paging';
import { boolean, decimal, integer, optional, requiredText, stringList } from './schema';
import { backendProblem } from '../agents/backends';
import { isAdminHere } from './admin-check';
import { requireSteerProject } from './steer-check';

/** What a command answers when `projectId` names no project. */
export function projectNotFound(projectId: string): string {
  return `Project '${projectId}' not found.`;
}

/** The project or a CommandError naming the id. */
export async function requireProject(ctx: CommandContext, projectId: string): Promise<ProjectRecord> {
  const project = await ctx.db.projects.get(projectId);
  if (!project) throw new CommandError(projectNotFound(projectId));
  return project;
}

/** The given project id, else the active project, else a CommandError. */
export function projectIdOrActive(ctx: CommandContext, projectId: string | undefined): string {
  const id = projectId ?? ctx.session.activeProjectId;
  if (!id) {
    throw new CommandError('No project given and no active project set. Pass project_id, or run set_active_project first.');
  }
  return id;
}

export function projectView(p: ProjectRecord) {
  return {
    id: p.id,
    name: p.name,
    status: p.status,
    credit_weight: p.creditWeight,
    max_concurrent_agents: p.maxConcurrentAgents,
    workspace: p.workspace,
    ...(p.chatChannelId ? { chat_channel_id: p.chatChannelId } : {}),
    ...(p.approvalsByRequester && { approvals_by_requester: true }),
    // Shown when it differs from the default (approval), like the other opt-in settings.
    ...(p.taskRooms !== 'approval' && { task_rooms: p.taskRooms }),
    // Only when it differs from the default, like approvals: the spec's replies stay as written.
    ...(p.overlapPolicy !== 'warn' && { overlap_policy: p.overlapPolicy }),
    ...(p.backends && { backends: p.backends }),
  };
}

const projectId = requiredText('Project id');
const approvalsByRequester = boolean(
  "Only the task's requester or an admin (AQ_ADMINS) may approve (and so merge) its tasks; default false",
);
const taskRooms = z
  .enum(TASK_ROOMS_SETTINGS)
  .describe('Which tasks get their own Slack room (code channel): all, approval (tasks that need approval; default) or off (threads only)');
const overlapPolicy = z
  .enum(OVERLAP_POLICIES)
  .describe(
    "When two live tasks touch the same files: 'warn' in both task threads (default), or 'serialize': also hold a READY task whose plan step or description names a file a running task touched",
  );
const backends = stringList(
  'Agent backends its tasks may run on, in order of preference: claude-code, acp (any ACP profile) or acp:<profile>; an empty list allows any',
);

/** A project's backends as stored (null allows any), or a CommandError naming the bad one. */
function checkedBackends(ctx: CommandContext, names: string[]): string[] | null {
  const problem = names.map((b) => backendProblem(b, ctx.config.agents.profiles)).find(Boolean);
  if (problem) throw new CommandError(problem);
  return names.length > 0 ? [...new Set(names)] : null;
}

// Not `optional(...)`: an empty value is meaningful here (it turns the check off).
const checkCommand = z
  .preprocess((value) => (value === null ? '' : value), z.string().trim().max(2000).optional())
  .describe("Shell command run in the task's workspace before it lands, e.g. 'npm test'; empty for no check");
const checkTimeoutSeconds = integer('Seconds the check command may run before it counts as failed (10 to 7200; default 600)', {
  min: 10,
  max: 7200,
});
const landing = z.enum(LANDING_MODES).describe('How a task branch catches up with the base before it lands: rebase (default) or merge');
const landingTries = integer('Times a task may be sent back from the merge train before it is BLOCKED (1 to 20; default 3)', {
  min: 1,
  max: 20,
});

/** The merge train's settings as commands show them. */
function landingSettings(p: ProjectRecord) {
  return {
    check_command: p.checkCommand,
    check_timeout_seconds: p.checkTimeoutSeconds,
    landing: p.landing,
    landing_tries: p.landingTries,
  };
}

const PROJECT_LIST: ListPaging = { key: 'projects', defaultLimit: 100, maxLimit: 500 };

export const listProjects = defineCommand({
  name: 'list_projects',
  group: 'projects',
  kind: 'read',
  description: `List projects with their status, scheduling weight and linked channel, oldest first, ${PROJECT_LIST.defaultLimit} a page; total counts them all and next_offset asks for the next page.`,
  input: () => z.object(pageFields(PROJECT_LIST)),
  list: PROJECT_LIST,
  async run(args, ctx) {
    const page = pageOf(args, PROJECT_LIST.defaultLimit);
    const projects = await ctx.db.projects.list(page);
    // A page short of its limit tells the total (one statement, not two); a full one, or one past the end, does not.
    const told = projects.length < page.limit && (projects.length > 0 || page.offset === 0);
    const total = told ? page.offset + projects.length : await ctx.db.projects.count();
    return { projects: projects.map(projectView), total, next_offset: nextOffset(page, projects.length, total) };
  },
});

export const createProject = defineCommand({
  name: 'create_project',
  group: 'projects',
  kind: 'change',
  description:
    'Create a project with its own workspace directory. The id is the name lowercased with spaces as hyphens. backends limits which agent backends run its tasks, in order of preference.',
  input: () =>
    z.object({
      name: requiredText('Project name'),
      credit_weight: optional(decimal('Share of agent time relative to other projects', { min: 0 })),
      max_concurrent_agents: optional(integer('Most agents working on this project at once', { min: 1, max: 100 })),
      auto_create_channels: optional(boolean('Create and link a Slack channel for the project')),
      approvals_by_requester: optional(approvalsByRequester),
      task_rooms: optional(taskRooms),
      overlap_policy: overlapPolicy.optional(),
      backends: optional(backends),
      check_command: checkCommand,
      check_timeout_seconds: optional(checkTimeoutSeconds),
      landing: optional(landing),
      landing_tries: optional(landingTries),
    }),
  async run(args, ctx) {
    const id = idFromName(args.name, 'Project id', { folder: true });
    const allowed = args.backends !== undefined ? checkedBackends(ctx, args.backends) : null;
    if (await ctx.db.projects.get(id)) {
      throw new CommandError(`Project '${id}' already exists. Pick another name, or use edit_project.`);
    }
    const workspace = path.join(ctx.config.workspaceDir, id);
    await mkdir(workspace, { recursive: true });
    const autoCreateChannels = args.auto_create_channels ?? ctx.config.chat.perProjectChannels.autoCreate;
    const project = await ctx.db.projects.create({
      id,
      name: args.name,
      workspace,
      creditWeight: args.credit_weight ?? 1.0,
      maxConcurrentAgents: args.max_concurrent_agents ?? 2,
      approvalsByRequester: args.approvals_by_requester ?? false,
      taskRooms: args.task_rooms ?? 'approval',
      overlapPolicy: args.overlap_policy ?? 'warn',
      backends: allowed,
      checkCommand: args.check_command,
      checkTimeoutSeconds: args.check_timeout_seconds,
      landing: args.landing,
      landingTries: args.landing_tries,
    });
    await ctx.events.emit('project_created', {
      projectId: id,
      payload: { name: project.name, auto_create_channels: autoCreateChannels },
    });
    return {
      created: id,
      name: project.name,
      workspace,
      auto_create_channels: autoCreateChannels,
      ...(project.approvalsByRequester && { approvals_by_requester: true }),
      ...(project.taskRooms !== 'approval' && { task_rooms: project.taskRooms }),
      ...(project.overlapPolicy !== 'warn' && { overlap_policy: project.overlapPolicy }),
      ...(project.backends && { backends: project.backends }),
    };
  },
});

export const getProject = defineCommand({
  name: 'get_project',
  group: 'projects',
  kind: 'read',
  description:
    "Show one project's settings: status, scheduling weight, agent limit, linked channel, approvals, task rooms, overlap policy, backends (null: any) and merge train settings (check command, its time limit, landing mode, tries).",
  input: () => z.object({ project_id: projectId }),
  async run({ project_id }, ctx) {
    const project = await requireProject(ctx, project_id);
    return {
      ...projectView(project),
      task_rooms: project.taskRooms,
      overlap_policy: project.overlapPolicy,
      backends: project.backends,
      ...landingSettings(project),
    };
  },
});

export const pauseProject = defineCommand({
  name: 'pause_project',
  group: 'projects',
  kind: 'change',
  description: 'Pause a project so no new tasks are scheduled for it.',
  input: () => z.object({ project_id: projectId }),
  async run({ project_id }, ctx) {
    await requireSteerProject(ctx, project_id, 'pause');
    const project = await ctx.db.projects.update(project_id, { status: 'PAUSED' });
    if (!project) throw new CommandError(`Project '${project_id}' not found.`);
    await ctx.events.emit('project_paused', { projectId: project_id });
    return { paused: project_id, name: project.name };
  },
});

export const resumeProject = defineCommand({
  name: 'resume_project',
  group: 'projects',
  kind: 'change',
  description: 'Resume a paused project so its tasks are scheduled again.',
  input: () => z.object({ project_id: projectId }),
  async run({ project_id }, ctx) {
    await requireSteerProject(ctx, project_id, 'resume');
    const project = await ctx.db.projects.update(project_id, { status: 'ACTIVE' });
    if (!project) throw new CommandError(`Project '${project_id}' not found.`);
    await ctx.events.emit('project_resumed', { projectId: project_id });
    return { resumed: project_id, name: project.name };
  },
});

export const editProject = defineCommand({
  name: 'edit_project',
  group: 'projects',
  kind: 'change',
  description:
    "Change a project's name, credit weight, agent limit, who may approve its tasks, which tasks get a Slack room, the overlap policy, or its merge train settings (check_command, check_timeout_seconds, landing, landing_tries).",
  input: () =>
    z.object({
      project_id: projectId,
      name: optional(requiredText('New display name')),
      credit_weight: optional(decimal('Share of agent time relative to other projects', { min: 0 })),
      max_concurrent_agents: optional(integer('Most agents working on this project at once', { min: 1, max: 100 })),
      approvals_by_requester: optional(approvalsByRequester),
      task_rooms: optional(taskRooms),
      overlap_policy: overlapPolicy.optional(),
      check_command: checkCommand,
      check_timeout_seconds: optional(checkTimeoutSeconds),
      landing: optional(landing),
      landing_tries: optional(landingTries),
      backends: optional(backends),
    }),
  async run(args, ctx) {
    const changes: Record<string, unknown> = {};
    const fields: string[] = [];
    if (args.name !== undefined) {
      changes.name = args.name;
      fields.push('name');
    }
    if (args.credit_weight !== undefined) {
      changes.creditWeight = args.credit_weight;
      fields.push('credit_weight');
    }
    if (args.max_concurrent_agents !== undefined) {
      changes.maxConcurrentAgents = args.max_concurrent_agents;
      fields.push('max_concurrent_agents');
    }
    if (args.approvals_by_requester !== undefined) {
      // Otherwise anyone could lift the rule that keeps them from approving.
      if (!isAdminHere(ctx)) throw new CommandError("Only admins (AQ_ADMINS) may change who approves a project's tasks; ask one of them.");
      changes.approvalsByRequester = args.approvals_by_requester;
      fields.push('approvals_by_requester');
    }
    if (args.task_rooms !== undefined) {
      changes.taskRooms = args.task_rooms;
      fields.push('task_rooms');
    }
    if (args.overlap_policy !== undefined) {
      changes.overlapPolicy = args.overlap_policy;
      fields.push('overlap_policy');
    }
    const landingChanges = {
      check_command: ['checkCommand', args.check_command],
      check_timeout_seconds: ['checkTimeoutSeconds', args.check_timeout_seconds],
      landing: ['landing', args.landing],
      landing_tries: ['landingTries', args.landing_tries],
    } as const;
    for (const [field, [key, value]] of Object.entries(landingChanges)) {
      if (value === undefined) continue;
      changes[key] = value;
      fields.push(field);
    }
    if (args.backends !== undefined) {
      changes.backends = checkedBackends(ctx, args.backends);
      fields.push('backends');
    }
    if (fields.length === 0) {
      throw new CommandError(
        'Nothing to update: give at least one of name, credit_weight, max_concurrent_agents, approvals_by_requester, task_rooms, overlap_policy, check_command, check_timeout_seconds, landing, landing_tries, backends.',
      );
    }
    const project = await ctx.db.projects.update(args.project_id, changes);
    if (!project) throw new CommandError(`Project '${args.project_id}' not found.`);
    await ctx.events.emit('project_updated', { projectId: args.project_id, payload: { fields } });
    return { updated: args.project_id, fields };
  },
});

/**
 * The folders a project cloned stay on disk when it goes, but not the tokens their origins' helpers
 * read from AQ_HOME (git/remote-credentials.ts): nothing of the app uses them any more. A worker's
 * clones, and their files, are on the worker's machine.
 */
async function forgetCloneCredentials(ctx: CommandContext, projectId: string): Promise<void> {
  const workspaces = (await ctx.db.workspaces.list(projectId)).filter((w) => w.sourceType === 'clone' && w.workerId === null);
  const repos = (await ctx.db.repos.list(projectId)).filter((r) => r.sourceType === 'clone' && r.checkoutBasePath);
  for (const folder of new Set([...workspaces.map((w) => w.path), ...repos.map((r) => r.checkoutBasePath as string)])) {
    await ctx.git.forgetOriginCredentials(folder);
  }
}

export const deleteProject = defineCommand({
  name: 'delete_project',
  group: 'projects',
  kind: 'admin',
  description: 'Delete a project and everything that belongs to it (tasks, repos, hooks). Refused while tasks are running.',
  input: () =>
    z.object({
      project_id: projectId,
      archive_channels: optional(boolean('Also archive the linked Slack channel')),
    }),
  async run({ project_id, archive_channels }, ctx) {
    const project = await requireProject(ctx, project_id);
    const running = await ctx.db.tasks.countInStatus('IN_PROGRESS', project_id);
    if (running > 0) {
      throw new CommandError(
        `Project '${project_id}' has ${running} task(s) IN_PROGRESS. Stop them first (stop_task), then delete the project.`,
      );
    }
    const channelId = project.chatChannelId;
    await forgetCloneCredentials(ctx, project_id);
    await ctx.db.projects.delete(project_id);
    if (ctx.session.activeProjectId === project_id) ctx.session.activeProjectId = null;
    await ctx.events.emit('project_deleted', {
      projectId: project_id,
      payload: { name: project.name, channel_id: channelId, archive_channels: archive_channels === true },
    });
    if (ctx.session.onProjectDeleted) await ctx.session.onProjectDeleted(project_id);
    return {
      deleted: project_id,
      name: project.name,
      ...(channelId ? { channel_ids: { channel: channelId } } : {}),
      ...(archive_channels === true ? { archive_channels: true } : {}),
    };
  },
});

export const projectCommands = [listProjects, createProject, getProject, pauseProject, resumeProject, editProject, deleteProject];
