import { buildClaudeEnv } from '../../../src/agents/claude-code';
import { describeToolUse, progressLines } from '../../../src/agents/progress-lines';
import { buildAgentPrompt, UPSTREAM_SUMMARY_LIMIT } from '../../../src/orchestrator/agent-prompt';
import { isSingleStepFallback, optsOutOfAutoTasks } from '../../../src/orchestrator/auto-task';
import { parsePlan } from '../../../src/plan/parser';

const base = {
  task: { id: 'swift-fox-001', title: 'Add login', description: 'Build the login page.', isPlanSubtask: false, planDepth: 0 },
  project: { id: 'web', name: 'Web' },
  workspacePath: '/ws/web',
  branch: 'swift-fox-001/add-login',
  defaultBranch: 'main',
  upstream: [],
  mayPlan: true,
};

describe('agent prompt', () => {
  it('has the context, the execution rules, the plan rules for root tasks, and the task', () => {
    const p = buildAgentPrompt(base);
    expect(p).toContain('Workspace directory: /ws/web');
    expect(p).toContain('Git branch (already checked out): swift-fox-001/add-login');
    expect(p).toMatch(/NO interactive user/);
    expect(p).toContain('Commit your work');
    expect(p).toContain('Do NOT push');
    expect(p).toContain('`.agent/plan.md`');
    expect(p).toContain('## Phase N: <title>');
    expect(p).toMatch(/delete `\.agent\/plan\.md`/);
    expect(p.trim().endsWith('Build the login page.')).toBe(true);
  });

  it('tells plan subtasks to implement directly, and includes upstream summaries cut to 2000 chars', () => {
    const long = 'x'.repeat(UPSTREAM_SUMMARY_LIMIT + 500);
    const p = buildAgentPrompt({
      ...base,
      task: { ...base.task, isPlanSubtask: true, planDepth: 1 },
      upstream: [
        { id: 'a', title: 'Schema', summary: long },
        { id: 'b', title: 'Empty', summary: null },
      ],
    });
    expect(p).toContain('Implement this step DIRECTLY');
    expect(p).not.toContain('Writing Implementation Plans');
    expect(p).toContain('### Schema (a)');
    expect(p).not.toContain('### Empty');
    expect(p).toContain(`${'x'.repeat(UPSTREAM_SUMMARY_LIMIT)}\n…(truncated)`);
    expect(p).not.toContain('x'.repeat(UPSTREAM_SUMMARY_LIMIT + 1));
  });
});

describe('Claude Code adapter pieces', () => {
  it('builds the CLI environment: ours + Anthropic settings + the four DISABLE variables + bounded retries', () => {
    const env = buildClaudeEnv(
      { apiKey: 'k', baseUrl: 'http://127.0.0.1:9', maxRetries: 1, env: { HOME: '/tmp/h' } },
      { PATH: '/bin', CLAUDECODE: '1', CLAUDE_CODE_ENTRYPOINT: 'cli' },
    );
    expect(env).toMatchObject({
      PATH: '/bin',
      HOME: '/tmp/h',
      ANTHROPIC_API_KEY: 'k',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_ERROR_REPORTING: '1',
      CLAUDE_CODE_MAX_RETRIES: '1',
      CLAUDE_CODE_SUBPROCESS_ENV_SCRUB: '1',
    });
    expect(env.CLAUDECODE).toBeUndefined();
    expect(env.CLAUDE_CODE_ENTRYPOINT).toBeUndefined();
  });

  it('keeps Slack tokens and other secrets away from the agent, but not its own Anthropic key', () => {
    const env = buildClaudeEnv(
      {},
      {
        PATH: '/bin',
        SLACK_BOT_TOKEN: 'xoxb-1',
        SLACK_APP_TOKEN: 'xapp-1',
        GITHUB_TOKEN: 'ghp',
        ANTHROPIC_API_KEY: 'sk-env',
        DATABASE_URL: 'postgres://aq:pw@db/aq',
        AQ_MIRROR: 'https://bot:pw@git.example.com/x.git',
        AQ_DEPLOY_KEY: 'k',
      },
    );
    expect(env).toMatchObject({ PATH: '/bin', ANTHROPIC_API_KEY: 'sk-env' });
    for (const name of ['DATABASE_URL', 'AQ_MIRROR', 'AQ_DEPLOY_KEY']) expect(env[name]).toBeUndefined();
    expect(env.SLACK_BOT_TOKEN).toBeUndefined();
    expect(env.SLACK_APP_TOKEN).toBeUndefined();
    expect(env.GITHUB_TOKEN).toBeUndefined();
  });

  it('turns assistant text and tool calls into short progress lines', () => {
    expect(describeToolUse('Write', { file_path: '/ws/a/src/x.ts', content: '...' }, '/ws/a')).toBe('Write · src/x.ts');
    expect(describeToolUse('Bash', { command: 'npm   test\n--silent' }, '/ws/a')).toBe('Bash · npm test --silent');
    const message = {
      type: 'assistant',
      parent_tool_use_id: null,
      message: {
        content: [
          { type: 'text', text: 'Looking around.' },
          { type: 'tool_use', name: 'Grep', input: { pattern: 'TODO' } },
        ],
      },
    } as never;
    expect(progressLines(message, '/ws/a')).toEqual(['Looking around.', 'Grep · TODO']);
  });
});

describe('plan file rules', () => {
  it('reads the auto_tasks: false frontmatter opt-out', () => {
    expect(optsOutOfAutoTasks('---\nauto_tasks: false\n---\n## Phase 1: x\n')).toBe(true);
    expect(optsOutOfAutoTasks('---\ntitle: x\nauto_tasks: "no"\n---\n')).toBe(true);
    expect(optsOutOfAutoTasks('---\nauto_tasks: true\n---\n')).toBe(false);
    expect(optsOutOfAutoTasks('# Plan\n\nauto_tasks: false\n')).toBe(false);
  });

  it('recognises the single-step fallback, and only it', () => {
    const doc = '# Notes\n\nJust some prose about the design, with no phases at all.\n';
    expect(isSingleStepFallback(doc, parsePlan(doc))).toBe(true);
    const oneHeading = '# Plan\n\n## Phase 1: Do the thing\n\nAll of the work happens in this one phase.\n';
    expect(parsePlan(oneHeading).steps).toHaveLength(1);
    expect(isSingleStepFallback(oneHeading, parsePlan(oneHeading))).toBe(false);
    const numbered = '1. Add the model with all fields\n';
    expect(isSingleStepFallback(numbered, parsePlan(numbered))).toBe(false);
  });
});
