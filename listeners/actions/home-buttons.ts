import type { App } from '@slack/bolt';
import { onAction } from './on-action';
import { HOME_BUTTONS } from '../../src/slack/blocks/action-ids';
import type { ListenerDeps } from '../index';
import type { ListenerRuntime } from '../index';
import { addRepoModal, newProjectModal, newTaskModal } from '../../src/slack/blocks/home-modals';
import { esc } from '../../src/slack/blocks/common';
import { publishHome } from '../../src/slack/home';
import { modalOriginFor, originOfClick, tell, type Origin } from './reply';

type Projects = { projects: Array<{ id: string; name: string }> };
type TaskList = { tasks: Array<{ id: string; title: string; status: string }> };

const actorOf = (origin: Origin) => ({
  source: 'slack' as const,
  userId: origin.userId,
  ...(origin.kind === 'message' && { channelId: origin.channelId }),
});

/** The project the click's channel is linked to, if any. */
async function channelProject(runtime: ListenerRuntime, origin: Origin): Promise<string | null> {
  if (origin.kind !== 'message') return null;
  const linked = await runtime.handler.execute('get_project_for_channel', { channel_id: origin.channelId }, actorOf(origin));
  return 'error' in linked ? null : linked.project_id;
}

async function projectsFor(runtime: ListenerRuntime, origin: Origin): Promise<Projects['projects']> {
  const result = await runtime.handler.execute('list_projects', {}, actorOf(origin));
  return 'error' in result ? [] : result.projects.map((p) => ({ id: String(p.id), name: String(p.name) }));
}

async function agentIds(runtime: ListenerRuntime, origin: Origin): Promise<string[]> {
  const result = await runtime.handler.execute('list_agents', {}, actorOf(origin));
  return 'error' in result ? [] : (result as { agents: Array<{ id: string }> }).agents.map((a) => a.id);
}

/** Free agent name: claude-1, claude-2, … */
function nextAgentName(taken: string[]): string {
  let n = 1;
  while (taken.includes(`claude-${n}`)) n++;
  return `claude-${n}`;
}

/**
 * The Home's own buttons (they work from messages too): the New task / New project / Add
 * repository modals, adding a first agent, resuming a project or scheduling, refreshing.
 */
export function registerHomeButtons(app: App, { runtime }: ListenerDeps): void {
  onAction(app, HOME_BUTTONS.newTask, async ({ body, action, respond, client }) => {
    const origin = originOfClick(body, respond);
    const [projects, tasks, linked] = await Promise.all([
      projectsFor(runtime, origin),
      runtime.handler.execute('list_tasks', {}, actorOf(origin)),
      channelProject(runtime, origin),
    ]);
    const named = projects.find((p) => p.id === action.value)?.id ?? null;
    const candidates = 'error' in tasks ? [] : (tasks as TaskList).tasks.filter((t) => t.status !== 'COMPLETED');
    await client.views.open({
      trigger_id: body.trigger_id,
      view: newTaskModal({ projects, selectedProject: named ?? linked, dependencyCandidates: candidates, origin: modalOriginFor(origin) }),
    });
  });

  onAction(app, HOME_BUTTONS.newProject, async ({ body, respond, client }) => {
    await client.views.open({ trigger_id: body.trigger_id, view: newProjectModal(modalOriginFor(originOfClick(body, respond))) });
  });

  onAction(app, HOME_BUTTONS.addRepo, async ({ body, action, respond, client }) => {
    const origin = originOfClick(body, respond);
    const [projects, linked] = await Promise.all([projectsFor(runtime, origin), channelProject(runtime, origin)]);
    if (projects.length === 0) {
      await client.views.open({ trigger_id: body.trigger_id, view: newProjectModal(modalOriginFor(origin)) });
      return;
    }
    const named = projects.find((p) => p.id === action.value)?.id ?? null;
    await client.views.open({ trigger_id: body.trigger_id, view: addRepoModal(projects, named ?? linked, modalOriginFor(origin)) });
  });

  onAction(app, HOME_BUTTONS.firstAgent, async ({ body, respond, client }) => {
    const origin = originOfClick(body, respond);
    const existing = await agentIds(runtime, origin);
    // The first-steps button asks for the first agent: a second click (or a stale Home) adds no other.
    if (existing.length > 0) {
      await tell({ runtime, client }, origin, `:information_source: Nothing to do: you already have an agent (\`${esc(existing[0])}\`).`);
      return;
    }
    const name = nextAgentName(existing);
    const result = await runtime.handler.execute('create_agent', { name }, actorOf(origin));
    await tell(
      { runtime, client },
      origin,
      'error' in result
        ? `:warning: Could not add an agent: ${esc(result.error)}`
        : `:white_check_mark: Added agent *${esc(result.name)}*. It picks up ready tasks as soon as there are some.`,
    );
  });

  onAction(app, HOME_BUTTONS.resumeProject, async ({ body, action, respond, client }) => {
    const origin = originOfClick(body, respond);
    const result = await runtime.handler.execute('resume_project', { project_id: action.value ?? '' }, actorOf(origin));
    await tell(
      { runtime, client },
      origin,
      'error' in result
        ? `:warning: Could not resume the project: ${esc(result.error)}`
        : `:arrow_forward: Resumed *${esc(result.name)}*: its tasks are scheduled again.`,
    );
  });

  onAction(app, HOME_BUTTONS.resumeScheduling, async ({ body, respond, client }) => {
    const origin = originOfClick(body, respond);
    const result = await runtime.handler.execute('orchestrator_control', { action: 'resume' }, actorOf(origin));
    await tell(
      { runtime, client },
      origin,
      'error' in result
        ? `:warning: Could not resume scheduling: ${esc(result.error)}`
        : ':arrow_forward: Scheduling resumed: ready tasks start again.',
    );
  });

  onAction(app, HOME_BUTTONS.refresh, async ({ body, client }) => {
    await publishHome(client, runtime, body.user.id, undefined, (m) => console.error(m));
  });
}
