/**
 * Every renderer of the app fed sample data, each variant a person can meet (every command's
 * result and error, every help page, every thread reply, every task state's buttons, the Home
 * in each state, every modal), on top of the gallery (block-gallery.ts). A test validates them
 * all, so a renderer nobody posts in a Slack test is still checked against Slack's rules.
 */
import type { KnownBlock } from '@slack/types';
import { ALL_COMMANDS } from '../../src/commands';
import { COMMAND_GROUPS } from '../../src/commands/catalog';
import { TASK_STATUSES } from '../../src/db/value-sets';
import type { EventRecord } from '../../src/db/repositories/events';
import { EVENT_TYPES } from '../../src/orchestrator/events';
import { classicFeedbackBlock, nativeFeedbackBlock } from '../../src/slack/ai-surfaces/feedback';
import { chatReplyBlocks, finishedReply } from '../../src/slack/chat-replies';
import { questionPost, settledRequestBlocks } from '../../src/slack/blocks/cards-requests';
import { threadReply, threadRoot } from '../../src/slack/blocks/cards-thread';
import { helpFor, helpGroupPage } from '../../src/slack/blocks/help';
import { addRepoModal, newProjectModal, newTaskModal, requestChangesModal } from '../../src/slack/blocks/home-modals';
import { renderResult } from '../../src/slack/blocks/render';
import { denyRequestModal } from '../../src/slack/blocks/request-modals';
import type { Result } from '../../src/slack/blocks/result-types';
import { taskDetailBlocks } from '../../src/slack/blocks/tasks';
import { txt } from '../../src/slack/blocks/text';
import { homeBlocks } from '../../src/slack/home';
import { busyHome, gallery, NOW } from './block-gallery';
import type { Surface } from './block-html';

const STATUSES = TASK_STATUSES;

const TASK = {
  id: 'swift-fox-042',
  project_id: 'web-app',
  title: 'Fix the login redirect loop',
  description: 'The login page redirects to itself when the session cookie is stale.',
  priority: 100,
  assigned_agent: 'claude-1',
  retry_count: 1,
  max_retries: 3,
  requires_approval: true,
  tokens: 48_210,
  cost_usd: 0.42,
  pr_url: 'https://github.com/acme/web-app/pull/321',
} satisfies Omit<Result<'get_task'>, 'status'>;

/** A result with the keys the cards read (ids, names, lists, text, a diff, a log). */
const RESULT = {
  id: 'swift-fox-042',
  created: 'swift-fox-042',
  title: 'Fix the login redirect loop',
  name: 'web-app',
  project_id: 'web-app',
  status: 'READY',
  message: 'Done.',
  summary: 'Fixed the redirect loop.',
  content: 'line one\nline two\n',
  diff: '+ added\n- removed',
  log: 'a1b2c3 Fix the loop\n',
  count: 2,
  total: 2,
  ok: true,
  items: [
    { id: 'a', title: 'First', status: 'FAILED', error: 'npm test failed' },
    { id: 'b', name: 'Second', state: 'IDLE' },
  ],
};

const message = (label: string, r: { text: string; blocks: KnownBlock[] }): Surface => ({
  kind: 'message',
  label,
  text: r.text,
  blocks: r.blocks as never[],
});

function event(type: string, payload: Record<string, unknown>): EventRecord {
  return { id: 1, type, projectId: 'web-app', taskId: TASK.id, agentId: 'claude-1', payload, origin: null, createdAt: NOW };
}

/** A payload with what any thread reply reads. */
const EVENT_PAYLOAD = {
  title: TASK.title,
  agent_name: 'claude-1',
  branch: 'aq/swift-fox-042',
  approved: true,
  tokens: 1200,
  cost_usd: 0.1,
  summary: 'Fixed it.\n\n- one\n- two',
  retry_count: 3,
  max_retries: 3,
  will_retry: false,
  error_type: 'Unexpected error',
  error: 'npm test failed',
  reason: 'A reason',
  pr_url: TASK.pr_url,
  old_status: 'FAILED',
  new_status: 'READY',
  message: 'CONFLICT in src/a.ts',
  stuck_downstream: [{ id: 'b', title: 'Next' }],
  tasks: [{ id: 'b', title: 'Next' }],
  text: 'Keep the cookie name',
  via: 'live',
  author: 'alice',
  kind: 'question',
  request_id: '17',
  questions: [
    { question: 'Which redirect?', header: 'Redirect', options: [{ label: 'Back' }, { label: 'Dashboard' }] },
    { question: 'Which checks?', multiSelect: true, options: [{ label: 'Lint' }, { label: 'Tests' }, { label: 'Types' }] },
  ],
  answers: { 'Which redirect?': 'Back' },
  answered_by: 'U1',
  timeout_seconds: 60,
};

const AT = '2026-11-23T05:00:00.000Z';
const POLICY = {
  project_id: 'web-app',
  rules: ['Bash(npm test *)', 'WebFetch(domain:docs.example.com)'],
  is_default: false,
  asks_people: true,
  timeout_seconds: 900,
  on_timeout: 'block',
} satisfies Result<'get_tool_policy'>;

/** Results whose card reads one fixed shape, typed on their commands' results. */
const SHAPED: Record<string, Record<string, unknown>> = {
  get_task: { ...TASK, status: 'FAILED' },
  list_tasks: { tasks: Array.from({ length: 20 }, (_, i) => ({ ...TASK, id: `t-${i}`, status: 'READY' })), total: 45 },
  list_projects: {
    projects: [
      { id: 'web-app', name: 'Web app', status: 'ACTIVE', credit_weight: 1, max_concurrent_agents: 2, workspace: '/srv/aq/web-app' },
      { id: 'docs', name: 'Docs', status: 'PAUSED', credit_weight: 1, max_concurrent_agents: 1, workspace: '/srv/aq/docs' },
    ],
    total: 2,
    next_offset: null,
  } satisfies Result<'list_projects'>,
  list_agents: {
    agents: [
      { id: 'claude-1', name: 'claude-1', type: 'claude', state: 'BUSY', current_task: TASK.id, backend: 'claude' },
      { id: 'claude-2', name: 'claude-2', type: 'claude', state: 'IDLE', current_task: null, backend: 'claude' },
    ],
    total: 2,
    next_offset: null,
  } satisfies Result<'list_agents'>,
  list_workers: {
    workers: [
      {
        name: 'build-box',
        host: 'build-box.internal',
        alive: true,
        capacity: 4,
        labels: ['linux', 'gpu'],
        running: 1,
        running_tasks: [TASK.id],
        last_heartbeat: AT,
        started_at: AT,
      },
    ],
    total: 1,
    next_offset: null,
  } satisfies Result<'list_workers'>,
  list_repos: {
    repos: [
      {
        id: 'web',
        project_id: 'web-app',
        source_type: 'clone',
        url: 'https://github.com/acme/web-app.git',
        source_path: null,
        default_branch: 'main',
        checkout_base_path: null,
      },
    ],
    total: 1,
    next_offset: null,
  } satisfies Result<'list_repos'>,
  list_workspaces: {
    project_id: 'web-app',
    workspaces: [
      {
        id: 'ws-1',
        name: 'web-1',
        path: '/srv/aq/web-app/web-1',
        source_type: 'clone',
        repo_id: 'web',
        locked_by_task_id: TASK.id,
        locked_by_agent_id: 'claude-1',
        locked_at: AT,
      },
    ],
    total: 1,
    next_offset: null,
  } satisfies Result<'list_workspaces'>,
  list_hooks: {
    hooks: [
      {
        id: 'nightly',
        project_id: 'web-app',
        name: 'Nightly audit',
        enabled: true,
        trigger: { type: 'periodic', interval_seconds: 86400 },
      },
    ],
    total: 1,
    next_offset: null,
  },
  list_hook_runs: {
    hook_id: 'nightly',
    hook_name: 'Nightly audit',
    runs: [
      {
        id: 'run-1',
        trigger_reason: 'periodic',
        status: 'completed',
        tokens_used: 5200,
        skipped_reason: null,
        started_at: AT,
        completed_at: AT,
      },
    ],
    total: 1,
    next_offset: null,
  },
  get_recent_events: {
    events: [
      {
        id: 2,
        type: 'task_failed',
        project_id: 'web-app',
        task_id: TASK.id,
        agent_id: 'claude-1',
        payload: { title: TASK.title },
        created_at: AT,
      },
      {
        id: 1,
        type: 'task_started',
        project_id: 'web-app',
        task_id: TASK.id,
        agent_id: 'claude-1',
        payload: { title: TASK.title },
        created_at: AT,
      },
    ],
    total: 2,
    next_offset: null,
  },
  get_tool_policy: POLICY,
  set_tool_policy: POLICY,
  list_agent_requests: {
    requests: [
      {
        id: 17,
        task_id: TASK.id,
        project_id: 'web-app',
        kind: 'question',
        questions: [{ question: 'Which redirect?', options: [{ label: 'Back' }, { label: 'Dashboard' }] }],
        status: 'pending',
        answer: null,
        answered_by: null,
        created_at: AT,
        expires_at: null,
      },
      {
        id: 18,
        task_id: TASK.id,
        project_id: 'web-app',
        kind: 'permission',
        tool: 'Bash',
        detail: 'npm run deploy',
        description: 'Deploy the preview',
        rule: 'Bash(npm run deploy)',
        status: 'answered',
        answer: null,
        answered_by: 'U1',
        created_at: AT,
        expires_at: null,
      },
    ],
    total: 2,
    next_offset: null,
  } satisfies Result<'list_agent_requests'>,
};

/** Every command's card and error (get_status, whose result has one fixed shape, is the gallery's `status`). */
function commandResults(): Surface[] {
  return ALL_COMMANDS.filter((c) => c.name !== 'get_status').flatMap((c) => [
    message(c.name, renderResult(c.name, { project_id: 'web-app', offset: 20 }, SHAPED[c.name] ?? RESULT)),
    message(`${c.name} error`, renderResult(c.name, {}, { error: `Task 'nope' not found.` })),
  ]);
}

function helpPages(): Surface[] {
  const pages: Surface[] = [message('help', helpFor(ALL_COMMANDS)!)];
  for (const c of ALL_COMMANDS) pages.push(message(`help ${c.name}`, helpFor(ALL_COMMANDS, c.name)!));
  for (const group of COMMAND_GROUPS)
    for (const page of [0, 1, 2]) {
      const rendered = helpGroupPage(ALL_COMMANDS, group, page);
      if (rendered) pages.push(message(`help ${group} page ${page}`, rendered));
    }
  return pages;
}

function threadMessages(): Surface[] {
  const out: Surface[] = [];
  for (const status of STATUSES) {
    out.push(
      message(`task ${status}`, taskDetailBlocks({ ...TASK, status })),
      message(
        `thread root ${status}`,
        threadRoot({
          id: TASK.id,
          title: TASK.title,
          projectId: 'web-app',
          status,
          agent: 'claude-1',
          branch: 'aq/x',
          prUrl: TASK.pr_url,
          retries: '1/3',
          tokens: 10,
          costUsd: 0.01,
        }),
      ),
    );
  }
  for (const type of EVENT_TYPES) {
    for (const again of [false, true]) {
      const reply = threadReply(event(type, EVENT_PAYLOAD), again);
      if (reply) out.push(message(`${type}${again ? ' again' : ''}`, reply));
    }
  }
  const permission = threadReply(
    event('agent_request_created', { ...EVENT_PAYLOAD, kind: 'permission', tool: 'Bash', detail: 'ls', rule: 'Bash(ls:*)' }),
    false,
  );
  if (permission) out.push(message('permission request', permission));
  const question = questionPost(EVENT_PAYLOAD);
  out.push(message('question settled', { text: question.text, blocks: settledRequestBlocks(question.blocks, [txt('Answered')]) }));
  return out;
}

function chatReplies(): Surface[] {
  // Two cards of the same task in one reply: their rows share a block id until the reply makes it unique.
  const card = taskDetailBlocks({ ...TASK, status: 'AWAITING_APPROVAL' }).blocks;
  const pending = [
    { id: 'c1', summary: 'delete_task task_id=old-bat-007' },
    { id: 'c2', summary: 'delete_hook hook_id=nightly' },
  ];
  const reply = finishedReply({ text: 'Here are both.', pendingConfirmations: pending } as never, [...card, ...card], 'conv-1');
  return [
    message('chat reply', chatReplyBlocks({ text: 'Done.', runs: [], pendingConfirmations: pending } as never)),
    {
      kind: 'message',
      label: 'chat reply with repeated cards',
      text: reply.text,
      blocks: [...reply.answerBlocks, ...reply.extras, classicFeedbackBlock('conv-1')] as never[],
    },
    {
      kind: 'message',
      label: 'chat reply, native feedback',
      text: reply.text,
      blocks: [...reply.answerBlocks, nativeFeedbackBlock('conv-1')] as never[],
    },
  ];
}

function homes(): Surface[] {
  const busy = busyHome();
  return [
    { kind: 'home', label: 'busy', view: { type: 'home', blocks: homeBlocks(busy, 'Approved.', NOW) } },
    { kind: 'home', label: 'paused', view: { type: 'home', blocks: homeBlocks({ ...busy, schedulingPaused: true }, undefined, NOW) } },
  ];
}

function modals(): Surface[] {
  const projects = [{ id: 'web-app', name: 'Web app' }];
  const origin = { from: 'home' as const };
  return [
    {
      kind: 'modal',
      label: 'new task',
      view: newTaskModal({ projects, selectedProject: 'web-app', dependencyCandidates: [{ id: 'a', title: 'First' }], origin }),
    },
    { kind: 'modal', label: 'new task, no project', view: newTaskModal({ projects: [], dependencyCandidates: [], origin }) },
    { kind: 'modal', label: 'new project', view: newProjectModal(origin) },
    { kind: 'modal', label: 'add repo', view: addRepoModal(projects, 'web-app', origin) },
    { kind: 'modal', label: 'request changes', view: requestChangesModal(TASK.id, TASK.title, origin) },
    { kind: 'modal', label: 'deny', view: denyRequestModal({ request_id: '18' }) },
  ] as Surface[];
}

/** Name → surfaces: the gallery's, then every renderer's variants. */
export async function everyRenderer(): Promise<Record<string, Surface[]>> {
  return {
    ...(await gallery()),
    'command results': commandResults(),
    'help pages': helpPages(),
    'task threads': threadMessages(),
    'chat replies': chatReplies(),
    homes: homes(),
    modals: modals(),
  };
}
