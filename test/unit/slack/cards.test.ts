import { ALL_COMMANDS } from '../../../src/commands';
import { CARDED_COMMANDS, cardFor } from '../../../src/slack/blocks/cards';
import { renderResult } from '../../../src/slack/blocks/render';
import { formatDollars, formatDuration, formatNumber, statusWords } from '../../../src/slack/blocks/cards-format';
import { HOSTILE, HOSTILE_BLOCK, showsLiterally } from '../../support/hostile';
import { validateMessage, visibleTexts } from '../../support/slack-validator';

const H = HOSTILE;

/** One result carrying every field the cards read, hostile wherever text we did not write goes. */
const universal: Record<string, unknown> = {
  id: 'swift-fox-042',
  task_id: 'swift-fox-042',
  created: 'swift-fox-042',
  title: H,
  name: H,
  project_id: 'p',
  project_name: H,
  status: 'FAILED',
  previous_status: 'FAILED',
  old_status: 'READY',
  new_status: 'BLOCKED',
  message: H,
  reason: H,
  error_type: 'rate_limit',
  error_message: HOSTILE_BLOCK,
  suggested_fix: H,
  agent_summary: H,
  retries: '1 / 3',
  result: 'FAILED',
  summary: HOSTILE_BLOCK,
  tokens_used: 123456,
  cost_usd: 0.0123,
  fields: ['title'],
  unblocked: [{ id: 'a-1', title: H }],
  projects: [{ id: 'p', name: H, status: 'PAUSED', credit_weight: 1, max_concurrent_agents: 2, chat_channel_id: 'C123' }],
  agents: [{ id: 'claude-1', name: H, type: 'claude', state: 'BUSY', current_task: 'swift-fox-042' }],
  repos: [
    {
      id: 'r',
      repo_id: 'r',
      project_id: 'p',
      source_type: 'clone',
      url: `https://x.example/${H}`,
      default_branch: 'main',
      branch: 'main',
      status: ` M ${H}`,
      recent_commits: [H],
    },
  ],
  workspaces: [{ id: 'w', name: H, path: `/tmp/${H}`, source_type: 'clone', repo_id: 'r', locked_by_task_id: 'swift-fox-042' }],
  hooks: [{ id: 'h', project_id: 'p', name: H, enabled: true, trigger: { type: 'event', event_type: 'task_failed' } }],
  hook_name: H,
  runs: [{ id: 1, trigger_reason: H, status: 'failed', tokens_used: 10, skipped_reason: null, started_at: '2026-11-23T05:00:00.000Z' }],
  notes: [{ name: 'n', title: H, size_bytes: 2048, modified: 1795410000.25 }],
  specs: [{ name: 's', title: H, size_bytes: 10 }],
  content: HOSTILE_BLOCK,
  path: `notes/${H}.md`,
  breakdown: [{ task_id: 'swift-fox-042', agent_id: 'claude-1', project_id: 'p', tokens: 1000 }],
  total: 1234567,
  breakdown_total: 45,
  next_offset: 20,
  events: [{ id: 1, type: 'task_failed', task_id: 't', project_id: 'p', payload: { title: H }, created_at: '2026-11-23T05:00:00.000Z' }],
  log: HOSTILE_BLOCK,
  diff: HOSTILE_BLOCK,
  branch: `feature/${H}`,
  base_branch: 'main',
  pr_url: 'https://github.com/acme/w/pull/1',
  stdout: HOSTILE_BLOCK,
  stderr: H,
  returncode: 1,
  results: HOSTILE_BLOCK,
  directories: [H],
  conflicts: [{ workspace_id: 'w', workspace_name: H, current_branch: H }],
  stuck_downstream: [{ id: 'x', title: H }],
  depends_on: [{ id: 'x', title: H, status: 'READY' }],
  dependents: [{ id: 'y', title: H, status: 'DEFINED' }],
  channel_id: 'C123',
  workspace: `/tmp/${H}`,
  commit_message: H,
  token_limit: 1000000,
  cost_limit_usd: 20,
  cost_used_usd: 5.5,
  percent: 25,
  window_hours: 24,
  delivery: 'live',
  workers: [
    {
      name: H,
      host: H,
      alive: true,
      capacity: 2,
      labels: [H],
      running: 1,
      running_tasks: ['swift-fox-042'],
      last_heartbeat: '2026-11-23T05:00:00.000Z',
      started_at: '2026-11-23T04:00:00.000Z',
    },
  ],
  rules: [`Bash(${H})`],
  is_default: false,
  asks_people: true,
  timeout_seconds: 600,
  on_timeout: 'block',
  requests: [
    {
      id: 7,
      task_id: 'swift-fox-042',
      project_id: 'p',
      kind: 'question',
      questions: [{ question: H, options: [{ label: H }] }],
      status: 'pending',
      answer: null,
      answered_by: null,
      created_at: '2026-11-23T05:00:00.000Z',
      expires_at: null,
    },
    {
      id: 8,
      task_id: 'swift-fox-042',
      project_id: 'p',
      kind: 'permission',
      tool: 'Bash',
      detail: H,
      description: H,
      rule: `Bash(${H})`,
      status: 'timed_out',
      answer: null,
      answered_by: 'U1',
      created_at: '2026-11-23T05:00:00.000Z',
      expires_at: null,
    },
  ],
};

const overrides: Record<string, Record<string, unknown>> = {
  create_task: { depends_on: ['x', 'y'], status: 'DEFINED', requires_approval: true },
  git_changed_files: { files: [H, 'src/a.ts'] },
  git_branch: { branches: ['main', H], current_branch: 'main' },
  list_directory: { files: [{ name: H, size: 10 }] },
  add_dependency: { depends_on: 'x' },
  get_merge_queue: {
    entries: ['waiting', 'checking', 'sent_back'].map((state, i) => ({
      task_id: `t-${i}`,
      title: H,
      train: 'r',
      place: i + 1,
      state,
      since: '2026-11-23T05:00:00.000Z',
      tries: i,
      last_outcome: state === 'sent_back' ? HOSTILE_BLOCK : null,
    })),
    total: 3,
    next_offset: null,
  },
};

describe('designed cards', () => {
  it('renders every command with a card, hostile text shown literally, within Slack limits', () => {
    const failures: string[] = [];
    for (const command of CARDED_COMMANDS) {
      const result = { ...universal, ...overrides[command] };
      const rendered = renderResult(command, {}, result);
      const violations = validateMessage({ text: rendered.text, blocks: rendered.blocks });
      if (violations.length) failures.push(`${command}: ${violations.map((v) => `${v.path} ${v.problem}`).join('; ')}`);
      if (rendered.blocks.length === 0) failures.push(`${command}: no blocks`);
      // A card, not a dump of keys.
      if (/\b(project_id|task_id|created|breakdown|returncode)\*?:/.test(JSON.stringify(rendered.blocks)))
        failures.push(`${command}: looks like a key: value dump`);
    }
    expect(failures).toEqual([]);
  });

  it('has a card for the commands people use most', () => {
    const names = new Set(ALL_COMMANDS.map((c) => c.name));
    for (const command of CARDED_COMMANDS) expect(names.has(command)).toBe(true);
    for (const command of [
      'create_task',
      'list_projects',
      'list_agents',
      'list_repos',
      'list_workspaces',
      'list_hooks',
      'list_hook_runs',
      'list_notes',
      'get_token_usage',
      'get_git_status',
      'git_log',
      'get_agent_error',
    ]) {
      expect(cardFor(command)).toBeDefined();
    }
  });

  it('shows names and titles literally (no ping, no link, formatting kept)', () => {
    for (const command of [
      'list_projects',
      'list_agents',
      'list_hooks',
      'list_notes',
      'create_project',
      'get_agent_error',
      'list_workspaces',
    ]) {
      const rendered = renderResult(command, {}, universal);
      expect(showsLiterally(rendered.blocks, H)).toBe(true);
    }
  });

  it('asks before Stop and offers Skip only where skip_task accepts it', () => {
    const running = JSON.stringify(renderResult('get_task', {}, { id: 't', title: 'T', status: 'IN_PROGRESS', project_id: 'p' }).blocks);
    expect(running).toContain('"action_id":"aq_stop_task"');
    expect(running).toContain('Stop this task?');
    const awaiting = JSON.stringify(
      renderResult('get_task', {}, { id: 't', title: 'T', status: 'AWAITING_APPROVAL', project_id: 'p' }).blocks,
    );
    expect(awaiting).toContain('aq_approve_task');
    expect(awaiting).not.toContain('aq_skip_task');
  });

  it('offers no Approve or Request changes for a task already waiting in its merge train', () => {
    const merge_queue = { place: 2, state: 'waiting', since: '2026-11-26T06:00:00.000Z', tries: 0 };
    const waiting = renderResult('get_task', {}, { id: 't', title: 'T', status: 'AWAITING_APPROVAL', project_id: 'p', merge_queue });
    const text = JSON.stringify(waiting.blocks);
    expect(text).toContain('🚂 #2 in the merge train');
    expect(text).not.toContain('aq_approve_task');
    expect(text).not.toContain('Request changes');
    expect(text).toContain('aq_restart_task');
  });

  it('says where a message to an agent went: the live run, the next run, or after the landing', () => {
    const base = { task_id: 't', title: 'T', message_id: 1 };
    const said = (result: Record<string, unknown>) => JSON.stringify(renderResult('message_task', {}, { ...base, ...result }).blocks);
    expect(said({ delivery: 'live', status: 'IN_PROGRESS' })).toContain('Sent to the running agent');
    expect(said({ delivery: 'follow_up', status: 'READY', resumes_session: true })).toContain('resumes its session');
    const landing = 'It lands first (#2 in the merge train); your message then runs as its follow-up, on top of the landed work.';
    const after = said({ delivery: 'after_landing', status: 'AWAITING_APPROVAL', landing });
    expect(after).toContain('Queued for after the landing');
    expect(after).toContain('#2 in the merge train');
  });

  it('marks a workspace whose sync hit conflicts as such, and counts them', () => {
    const row = (name: string, status: string, message?: string) => ({
      workspace_id: `p-${name}`,
      workspace_name: name,
      path: `/w/${name}`,
      status,
      branch: 'main',
      actions: [],
      ...(message && { message }),
    });
    const rendered = renderResult(
      'sync_workspaces',
      {},
      {
        project_id: 'p',
        default_branch: 'main',
        total_workspaces: 3,
        synced: 1,
        skipped: 0,
        errors: 0,
        conflicts: 1,
        workspaces: [row('ws-1', 'synced'), row('ws-2', 'conflict', 'Unresolved merge conflicts in a.txt')],
      },
    );
    const text = visibleTexts(rendered.blocks).join('\n');
    expect(text).toContain('1 with conflicts');
    expect(text).toContain('✅ ws-1');
    expect(text).toContain('⚠️ ws-2  p-ws-2  conflict · Unresolved merge conflicts in a.txt');
  });

  it('formats token usage with separators and cost in dollars', () => {
    const rendered = renderResult(
      'get_token_usage',
      {},
      { breakdown: [{ project_id: 'p', tokens: 1000000 }], total: 1234567, breakdown_total: 1 },
    );
    const text = JSON.stringify(rendered.blocks);
    expect(text).toContain('1,234,567 tokens in all');
    expect(text).toContain('1,000,000 tokens');
    expect(formatDollars(0.0123)).toBe('$0.01');
    expect(formatDollars(0.62)).toBe('$0.62');
    expect(formatDollars(0.0012)).toBe('$0.0012');
    expect(formatDollars(12.5)).toBe('$12.50');
    expect(formatNumber(1234567)).toBe('1,234,567');
    expect(formatDuration(3 * 3600_000 + 5 * 60_000)).toBe('3h 05m');
    expect(statusWords('AWAITING_APPROVAL')).toBe('awaiting approval');
  });

  it('turns a created task into a task card and an agent error into an error card with next steps', () => {
    const created = renderResult(
      'create_task',
      {},
      { created: 'swift-fox-042', title: 'Fix login', project_id: 'web', depends_on: ['a-1'], status: 'DEFINED' },
    );
    expect(created.text).toContain('Queued: Fix login');
    expect(JSON.stringify(created.blocks)).toContain('waits for 1 task');
    const error = renderResult(
      'get_agent_error',
      {},
      {
        task_id: 't',
        title: 'Flaky',
        status: 'FAILED',
        retries: '3 / 3',
        result: 'FAILED',
        error_type: 'timeout',
        error_message: 'Timed out after 600s',
        suggested_fix: 'Raise the timeout.',
      },
    );
    const blocks = JSON.stringify(error.blocks);
    expect(blocks).toContain('timeout');
    expect(blocks).toContain('Timed out after 600s');
    expect(blocks).toContain('Raise the timeout.');
    expect(blocks).toContain('aq_restart_task');
  });

  it('says which page of a list it shows, counting only a list of the declared shape', () => {
    const footer = (command: string, args: Record<string, unknown>, result: Record<string, unknown>) =>
      JSON.stringify(renderResult(command, args, result).blocks.at(-1));
    const chains = [{ blocked_task: { id: 't-1', title: H }, stuck_downstream: [], stuck_count: 2 }];
    expect(
      footer('get_chain_health', { offset: 50 }, { project_id: 'p', stuck_chains: chains, total_stuck_chains: 90, next_offset: 51 }),
    ).toContain('Showing 51–51 of 90: ask again with `offset=51` for the next page.');
    // One task's chain answers in another shape: no count from the project's keys.
    const oneTask = {
      task_id: 't-1',
      title: H,
      status: 'BLOCKED',
      stuck_downstream: [{ id: 't-2', title: H }],
      stuck_count: 3,
      next_offset: 1,
    };
    expect(footer('get_chain_health', { task_id: 't-1', limit: 1 }, oneTask)).toContain(
      'More follow: ask again with `offset=1` for the next page.',
    );
    // One offset pages both dependency lists: the card says so once, without a count of either.
    const deps = {
      task_id: 't-1',
      depends_on: [{ id: 't-0', title: H, status: 'READY' }],
      dependents: [],
      depends_on_total: 3,
      dependents_total: 0,
      next_offset: 1,
    };
    const shown = JSON.stringify(renderResult('get_task_dependencies', { task_id: 't-1', limit: 1 }, deps).blocks);
    expect(shown).toContain('More on the next page: ask again with `offset=1`.');
    expect(shown).not.toContain('Showing');
    expect(shown).toContain('Waits for 3');
  });

  it('shows the day a note last changed (list_notes gives its mtime in seconds) and what each agent request asks', () => {
    const notes = JSON.stringify(
      renderResult('list_notes', {}, { project_id: 'p', notes: universal.notes, total: 1, next_offset: null }).blocks,
    );
    expect(notes).toContain('2026-11-23');
    expect(notes).not.toContain('1795410000');
    const requests = JSON.stringify(renderResult('list_agent_requests', {}, { requests: universal.requests, total: 2 }).blocks);
    expect(requests).toContain('❓');
    expect(requests).toContain('🔐');
    expect(requests).toContain('#8');
    expect(requests).toContain('timed out');
  });

  it("says what a task's diff is against: its repository's default branch", () => {
    const diff = renderResult('get_task_diff', {}, { diff: '+ added', branch: 'aq/t-1', base: 'trunk' });
    expect(JSON.stringify(diff.blocks)).toContain('against trunk');
    const lowLevel = renderResult('git_diff', {}, { project_id: 'p', diff: '+ added', base_branch: 'main' });
    expect(JSON.stringify(lowLevel.blocks)).toContain('against main');
    expect(JSON.stringify(diff.blocks)).not.toContain('larger than');
    // A diff the app read only the start of says so, and where to count all of it.
    const cut = renderResult('get_task_diff', {}, { diff: '+ added', diff_cut: true, branch: 'aq/t-1', base: 'trunk' });
    expect(JSON.stringify(cut.blocks)).toContain(
      'This diff is larger than 4 MB: these are its first lines. `summary=true` counts every file.',
    );
    const lowCut = renderResult('git_diff', {}, { project_id: 'p', diff: '+ added', diff_cut: true, base_branch: 'main' });
    expect(JSON.stringify(lowCut.blocks)).toContain('`git_changed_files` lists every file.');
  });

  it('says a merge that conflicted was not merged, into which branch, and which files conflict', () => {
    for (const [command, result] of [
      [
        'git_merge',
        {
          repo_id: 'r',
          merged: false,
          into: 'main',
          message: 'Merging conflicts; the merge was aborted.',
          conflicting_files: ['src/a.ts'],
        },
      ],
      [
        'merge_branch',
        { project_id: 'p', repo_id: 'r', branch: 'feature', target: 'main', status: 'conflict', conflicting_files: ['src/a.ts'] },
      ],
    ] as const) {
      const shown = JSON.stringify(renderResult(command, {}, result).blocks);
      expect(shown).toContain('Not merged: conflicts');
      expect(shown).not.toContain('"Merged"');
      expect(shown).toContain('into main');
      expect(shown).toContain('src/a.ts');
    }
    const merged = JSON.stringify(renderResult('git_merge', {}, { repo_id: 'r', merged: true, branch: 'feature', into: 'trunk' }).blocks);
    expect(merged).toContain('Merged');
    expect(merged).toContain('into trunk');
  });

  it("says whose budget was cleared: a project's or the one over everything", () => {
    const project = JSON.stringify(renderResult('clear_budget', {}, { budget_cleared: 'web-app' }).blocks);
    expect(project).toContain('project web-app');
    expect(project).not.toContain('everything');
    expect(JSON.stringify(renderResult('clear_budget', {}, { budget_cleared: 'global' }).blocks)).toContain('everything');
  });
});
