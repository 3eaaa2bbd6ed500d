/**
 * The app's real renderers fed realistic data, for `node scripts/render-blocks.js --gallery`:
 * one entry per screen a person sees. The empty Home comes from a real runtime; the rest from
 * the renderers directly (the data a busy workspace would give them).
 */
import type { KnownBlock } from '@slack/types';
import type { EventRecord } from '../../src/db/repositories/events';
import { finishedReply } from '../../src/slack/chat-replies';
import { classicFeedbackBlock } from '../../src/slack/ai-surfaces/feedback';
import { helpFor } from '../../src/slack/blocks/help';
import { renderResult } from '../../src/slack/blocks/render';
import { denyRequestModal } from '../../src/slack/blocks/request-modals';
import { settledRequestBlocks } from '../../src/slack/blocks/cards-requests';
import { progressReply, threadReply, threadRoot, type RootFacts } from '../../src/slack/blocks/cards-thread';
import { bold, txt } from '../../src/slack/blocks/text';
import type { HomeData } from '../../src/slack/home-data';
import { homeBlocks, homeView } from '../../src/slack/home';
import type { Surface } from './block-html';
import { contextBar } from '../../src/slack/rooms/room-context';
import { planBlockMessage, planListMessage, type PlanView } from '../../src/slack/blocks/plan-block';
import { canvasInvite } from '../../src/slack/blocks/plan-canvas-edits';
import { taskGoneUnfurl, taskUnfurl } from '../../src/slack/blocks/task-unfurl';
import { makeTestRuntime } from './runtime';
import { taskResult } from './task-result';

export const NOW = new Date('2026-11-23T09:00:00Z');
const minutesAgo = (m: number) => new Date(NOW.getTime() - m * 60_000);

let eventId = 0;
function event(type: string, taskId: string, payload: Record<string, unknown>): EventRecord {
  eventId += 1;
  return { id: eventId, type, projectId: 'web-app', taskId, agentId: 'claude-1', payload, origin: null, createdAt: NOW };
}

const msg = (r: { text: string; blocks?: KnownBlock[] } | null) => ({ text: r?.text ?? '', blocks: (r?.blocks ?? []) as never[] });

export function busyHome(): HomeData {
  return {
    projectCount: 4,
    repoCount: 5,
    agents: [
      { id: 'claude-1', name: 'claude-1', state: 'BUSY' },
      { id: 'claude-2', name: 'claude-2', state: 'BUSY' },
      { id: 'claude-3', name: 'claude-3', state: 'IDLE' },
    ],
    byStatus: { READY: 6, IN_PROGRESS: 2, WAITING_INPUT: 1, AWAITING_APPROVAL: 1, FAILED: 1, COMPLETED: 23 },
    schedulingPaused: false,
    attention: [
      {
        id: 'brave-owl-017',
        title: 'Migrate the billing webhooks to v2',
        projectId: 'billing',
        status: 'WAITING_INPUT',
        detail: 'Asks: Should the webhook retries keep the v1 signature for a week, or switch at once?',
        prUrl: null,
        train: null,
      },
      {
        id: 'calm-lynx-204',
        title: 'Add dark mode to the settings page',
        projectId: 'web-app',
        status: 'AWAITING_APPROVAL',
        detail: null,
        prUrl: 'https://github.com/acme/web-app/pull/318',
        train: null,
      },
      {
        id: 'quick-hare-093',
        title: 'Upgrade to Node 22',
        projectId: 'api',
        status: 'FAILED',
        detail: 'npm test failed: 3 tests in test/auth.test.ts time out after the upgrade of jsonwebtoken.',
        prUrl: null,
        train: null,
      },
    ],
    attentionTotal: 3,
    running: [
      {
        id: 'swift-fox-042',
        title: 'Fix the login redirect loop',
        projectId: 'web-app',
        agent: 'claude-1',
        startedAt: minutesAgo(12),
        lastProgress: 'Running the e2e suite against the patched middleware',
      },
      {
        id: 'lone-wolf-311',
        title: 'Write the API docs for /v2/invoices',
        projectId: 'billing',
        agent: 'claude-2',
        startedAt: minutesAgo(47),
        lastProgress: null,
      },
    ],
    runningTotal: 2,
    ready: [
      { id: 'red-kite-001', title: 'Cache the pricing table', projectId: 'api' },
      { id: 'tall-elk-002', title: 'Remove the legacy CSV export', projectId: 'web-app' },
      { id: 'slow-ant-003', title: 'Rotate the staging secrets', projectId: 'infra', waiting: 'infra: every agent is busy' },
    ],
    readyTotal: 6,
    pausedProjects: [{ id: 'infra', name: 'Infrastructure' }],
    mergeTrain: {
      rows: [
        { state: 'checking' as const, title: 'Add dark mode to the settings page', task_id: 'calm-lynx-204', tries: 0, last_outcome: null },
        {
          state: 'sent_back' as const,
          title: 'Bump <b>&amp; the SDK',
          task_id: 'pale-moth-118',
          tries: 1,
          last_outcome: "Your branch 'pale-moth-118/bump' conflicts with origin/main in package.json.",
        },
        { state: 'waiting' as const, title: 'Trim the log noise', task_id: 'dark-crow-220', tries: 0, last_outcome: null },
      ].map((e, i) => ({ ...e, train: 'web-app-repo', place: i + 1, since: minutesAgo(5 - i).toISOString() })),
      total: 3,
    },
  };
}

function home(label: string, blocks: KnownBlock[]): Surface[] {
  return [{ kind: 'home', label, view: { type: 'home', blocks } }];
}

const root: RootFacts = {
  id: 'swift-fox-042',
  title: 'Fix the login redirect loop',
  projectId: 'web-app',
  status: 'IN_PROGRESS',
  agent: 'claude-1',
  branch: 'aq/swift-fox-042-fix-login-redirect',
  prUrl: null,
  retries: '1/3',
  tokens: 48_210,
  costUsd: 0.62,
};

function taskThread(): Surface[] {
  const t = { title: root.title };
  const question = threadReply(
    event('agent_request_created', root.id, {
      ...t,
      kind: 'question',
      request_id: '17',
      timeout_seconds: 1800,
      on_timeout: 'continue',
      questions: [
        {
          question: 'Should the redirect after login go to the page the person came from, or always to the dashboard?',
          header: 'Redirect',
          options: [
            { label: 'Page they came from', description: 'keeps deep links working' },
            { label: 'Always the dashboard', description: 'simpler, what the old app did' },
          ],
        },
      ],
    }),
    false,
  );
  const permission = threadReply(
    event('agent_request_created', root.id, {
      ...t,
      kind: 'permission',
      request_id: '18',
      tool: 'Bash',
      detail: 'npx playwright install chromium',
      description: 'Install the browser for the e2e tests',
      rule: 'Bash(npx playwright install:*)',
      timeout_seconds: 1800,
      on_timeout: 'block',
    }),
    false,
  );
  const settledPermission = {
    text: permission?.text ?? '',
    blocks: settledRequestBlocks((permission?.blocks ?? []) as KnownBlock[], [txt('✅ '), bold('Allowed once'), txt(' by @alice')]),
  };
  return [
    {
      kind: 'message',
      label: 'Task thread: root while running, then its replies',
      ...msg(threadRoot(root)),
      thread: [
        msg(
          progressReply(root.title, [
            'Reading src/auth/middleware.ts',
            'Found the loop: /login redirects to itself when the session cookie is stale',
          ]),
        ),
        msg(question),
        msg(
          threadReply(
            event('agent_request_answered', root.id, {
              ...t,
              kind: 'question',
              answered_by: 'U1',
              answers: {
                'Should the redirect after login go to the page the person came from, or always to the dashboard?': 'Page they came from',
              },
            }),
            false,
          ),
        ),
        settledPermission,
        msg(
          threadReply(
            event('agent_request_timed_out', root.id, { ...t, kind: 'permission', timeout_seconds: 1800, action: 'block' }),
            false,
          ),
        ),
      ],
    },
    {
      kind: 'message',
      label: 'Task thread: done, with a pull request, then a follow-up',
      ...msg(threadRoot({ ...root, status: 'AWAITING_APPROVAL', prUrl: 'https://github.com/acme/web-app/pull/321' })),
      thread: [
        msg(threadReply(event('task_awaiting_approval', root.id, { ...t, pr_url: 'https://github.com/acme/web-app/pull/321' }), false)),
        msg(
          threadReply(
            event('task_completed', root.id, {
              ...t,
              approved: true,
              tokens: 48210,
              cost_usd: 0.62,
              summary:
                'Fixed the redirect loop: the middleware now **clears a stale session cookie** before redirecting.\n\n- Added `test/e2e/login.spec.ts`\n- All 214 tests pass',
            }),
            false,
          ),
        ),
        msg(
          threadReply(event('task_follow_up_queued', root.id, { ...t, text: 'Also handle the logout page', resumes_session: true }), false),
        ),
        msg(threadReply(event('task_started', root.id, { ...t, agent_name: 'claude-1', branch: root.branch }), true)),
        msg(
          threadReply(
            event('task_message_delivered', root.id, { ...t, via: 'live', author: 'alice', text: 'Keep the old cookie name' }),
            false,
          ),
        ),
        msg(
          threadReply(
            event('task_failed', root.id, {
              ...t,
              retry_count: 3,
              max_retries: 3,
              will_retry: false,
              error_type: 'Unexpected error',
              error: 'npm test: 2 failing (test/e2e/logout.spec.ts)',
              suggested_fix: 'Start the dev server before the e2e suite',
            }),
            false,
          ),
        ),
      ],
    },
  ];
}

function chatReply(): Surface[] {
  const created = renderResult(
    'create_task',
    {},
    {
      created: 'tidy-crow-550',
      title: 'Add rate limiting to /api/login',
      project_id: 'web-app',
      status: 'READY',
      depends_on: [],
      requires_approval: true,
    },
  );
  const reply = finishedReply(
    {
      text: 'I created the task in **web-app**. I also want to delete the stale task `old-bat-007`, which needs your confirmation.',
      pendingConfirmations: [{ id: 'c1', summary: 'delete_task task_id=old-bat-007 (Try the old OAuth flow)' }],
    } as never,
    created.blocks as KnownBlock[],
    'conv-1',
  );
  return [
    {
      kind: 'message',
      label: 'Chat reply (final blocks)',
      text: reply.text,
      blocks: [...reply.answerBlocks, ...reply.extras, classicFeedbackBlock('conv-1')] as never[],
    },
  ];
}

function statusCard(): Surface[] {
  const status = {
    projects: 4,
    agents: [
      {
        id: 'claude-1',
        name: 'claude-1',
        state: 'BUSY',
        working_on: { task_id: 'swift-fox-042', title: 'Fix the login redirect loop', project_id: 'web-app', status: 'IN_PROGRESS' },
      },
      { id: 'claude-2', name: 'claude-2', state: 'IDLE' },
    ],
    tasks: {
      total: 34,
      by_status: { READY: 6, IN_PROGRESS: 1, WAITING_INPUT: 1, AWAITING_APPROVAL: 1, FAILED: 1, COMPLETED: 24 },
      in_progress: [{ id: 'swift-fox-042', title: 'Fix the login redirect loop', project_id: 'web-app', assigned_agent: 'claude-1' }],
      ready_to_work: [
        { id: 'red-kite-001', title: 'Cache the pricing table', project_id: 'api' },
        {
          id: 'slow-ant-003',
          title: 'Rotate the staging secrets',
          project_id: 'infra',
          waiting_reason: 'infra is paused',
          waiting_code: 'project_paused',
        },
      ],
    },
    orchestrator_paused: false,
    not_starting: [],
    agent_sandbox: {},
    forges: {},
    slack_features: { assistant: { mode: 'fallback', slack_error: 'not_allowed_token_type' } },
  };
  return [{ kind: 'message', label: 'get_status', ...msg(renderResult('get_status', {}, status)) }];
}

function policyCard(): Surface[] {
  const r = {
    project_id: 'web-app',
    rules: ['Bash(npm test:*)', 'Bash(npx playwright install:*)', 'WebFetch(domain:docs.github.com)'],
    is_default: false,
    asks_people: true,
    timeout_seconds: 1800,
    on_timeout: 'continue',
  };
  return [{ kind: 'message', label: 'get_tool_policy', ...msg(renderResult('get_tool_policy', { project_id: 'web-app' }, r)) }];
}

/** A busy Home whose ready queue holds 60 tasks (the data_table's case). */
function busyQueue(data: HomeData): HomeData {
  const titles = ['Add dark mode', 'Fix the flaky login test', 'Bump eslint to 9', 'Write the API docs', 'Cache the build'];
  const ready = Array.from({ length: 60 }, (_, i) => ({
    id: `task-${String(i + 1).padStart(3, '0')}`,
    title: `${titles[i % titles.length]} (${i + 1})`,
    projectId: i % 2 ? 'web' : 'api',
    priority: i % 4,
  }));
  return { ...data, ready, readyTotal: 60 };
}

/** A plan of four steps in every state a card shows, one title with markup it must show literally. */
const SAMPLE_PLAN: PlanView = {
  taskId: 'brave-otter-512',
  title: 'Ship the <widget> & its docs',
  steps: [
    { id: 'calm-lynx-101', title: 'Add the Widget model and its migration', status: 'COMPLETED' },
    { id: 'keen-wren-102', title: 'Render the widget in src/view.ts *with* styles', status: 'IN_PROGRESS' },
    { id: 'wise-crow-103', title: 'Wire it up and add a smoke test', status: 'DEFINED' },
    { id: 'bold-hawk-104', title: 'Write the docs page', status: 'BLOCKED' },
  ],
};

/** A task's room as Slack shows it: the context bar, the view tabs, and the plan block and canvas invite in it. */
function taskRoom(status: string): Surface[] {
  const bar = contextBar({
    repo: 'web',
    branch: 'aq/brave-otter-512-ship-the-widget-and-its-docs',
    prUrl: status === 'AWAITING_APPROVAL' ? 'https://github.com/acme/web/pull/42' : null,
    status,
    tokens: 182_340,
    costUsd: 1.37,
    budgetTokens: 2_000_000,
  });
  const invite = canvasInvite(SAMPLE_PLAN.taskId);
  return [
    {
      kind: 'room',
      label: `Task room (${status.toLowerCase().replace(/_/g, ' ')})`,
      name: 'aq-brave-otter-512',
      contextBar: bar,
      tabs: status === 'AWAITING_APPROVAL' ? ['Diff', 'Pull request', 'Plan'] : ['Diff', 'Plan'],
      messages: [
        msg(planBlockMessage(SAMPLE_PLAN)),
        msg(invite),
        {
          text: '🏁 Ship the &lt;widget&gt; &amp; its docs: completed · 4 files changed (+120 −8) · PR https://github.com/acme/web/pull/42 · $1.37 · 182,340 tokens',
        },
      ],
    },
  ];
}

/** Name → what to draw. */
export async function gallery(): Promise<Record<string, Surface[]>> {
  const rt = await makeTestRuntime();
  let empty: KnownBlock[];
  let commands: Parameters<typeof helpFor>[0];
  try {
    empty = (await homeView(rt)).blocks;
    commands = rt.handler.commands;
  } finally {
    await rt.cleanup();
  }
  const data = busyHome();
  return {
    'home-empty': home('App Home: a fresh install', empty),
    'home-busy': home('App Home: a busy workspace', homeBlocks(data, undefined, NOW)),
    'home-table': home('App Home: the ready queue as a data_table', homeBlocks(busyQueue(data), undefined, NOW, { table: true })),
    'task-thread-running': [taskThread()[0]],
    'task-thread-done': [taskThread()[1]],
    'chat-reply': chatReply(),
    'deny-modal': [{ kind: 'modal', label: 'Deny… on a permission request', view: denyRequestModal({ request_id: '18' }) }],
    status: statusCard(),
    'tool-policy': policyCard(),
    'task-card': [
      {
        kind: 'message',
        label: 'get_task',
        ...msg(
          renderResult(
            'get_task',
            {},
            {
              id: 'quick-hare-093',
              title: 'Upgrade to Node 22',
              status: 'FAILED',
              project_id: 'api',
              priority: 100,
              assigned_agent: null,
              retry_count: 3,
              max_retries: 3,
              requires_approval: false,
              description: 'Move CI and the Dockerfile to Node 22 and fix what breaks.\nDone when npm test passes on Node 22.',
            },
          ),
        ),
      },
    ],
    help: [{ kind: 'message', label: '/aq help', ...msg(helpFor(commands)) }],
    'room-running': taskRoom('IN_PROGRESS'),
    'room-approval': taskRoom('AWAITING_APPROVAL'),
    'task-unfurl': [
      {
        kind: 'message',
        label: 'A pasted task link, unfurled the classic way',
        text: 'https://aq.example.com/tasks/brave-otter-512',
        blocks: taskUnfurl(
          taskResult({
            id: 'brave-otter-512',
            title: 'Ship the <widget> & its docs',
            status: 'IN_PROGRESS',
            project_id: 'web',
            assigned_agent: 'claude-1',
            branch: 'aq/brave-otter-512-ship-the-widget',
          }),
          'https://aq.example.com/tasks/brave-otter-512',
        ).blocks as never[],
      },
      { kind: 'message', label: 'A pasted link to a deleted task', blocks: taskGoneUnfurl('quick-hare-093').blocks as never[] },
    ],
    'plan-block': [
      { kind: 'message', label: 'A plan as a plan block', ...msg(planBlockMessage(SAMPLE_PLAN)) },
      { kind: 'message', label: 'A plan as a list (where Slack refuses the plan block)', ...msg(planListMessage(SAMPLE_PLAN)) },
    ],
  };
}
