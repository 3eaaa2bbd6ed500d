// @scratch-on-disk: the real Claude Code CLI runs shell commands in a sandbox with a /dev of its own, where a workspace in /dev/shm is not.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { WebClient } from '@slack/web-api';
import { ClaudeCodeAdapter } from '../../../src/agents/claude-code';
import { claudeCodeOptions } from '../../../src/agents/claude-options';
import { GitManager } from '../../../src/git/git-manager';
import { GitManagerTaskGit } from '../../../src/orchestrator/task-git';
import { SlackNotifier } from '../../../src/slack/notifier';
import { agentTempDir } from '../../../src/util/app-home-files';
import { ORDINARY_TEXT, writeAppFiles } from '../../support/app-files';
import { FakeAnthropic, type RecordedRequest, type ScriptedAnswer, type ToolResultBlock } from '../../support/fake-anthropic';
import { FakeSlack } from '../../support/fake-slack';
import { makeHarness, waitFor, type Harness } from '../../integration/orchestrator/harness';

jest.setTimeout(120_000);

/** The key the CLI is given to reach its model: it must work, and never reach the agent's shell. */
const CLI_KEY = 'sk-ant-cli-key-must-not-leak-0001';

/** Secrets of the app's environment, named and shaped in the ways the filter must recognise. */
const APP_SECRETS: Record<string, string> = {
  SLACK_BOT_TOKEN: 'xoxb-1111-2222-bot-token-must-not-leak',
  SLACK_SIGNING_SECRET: 'signing-secret-must-not-leak-3333',
  ANTHROPIC_API_KEY: 'sk-ant-env-key-must-not-leak-4444',
  DATABASE_URL: 'postgres://aq:pg-pass-must-not-leak@db.internal:5432/aq',
  AQ_SOMETHING_TOKEN: 'aq-something-token-must-not-leak',
  AQ_MIRROR: 'https://bot:mirror-pass-must-not-leak@git.example.com/mirror.git',
  GITHUB_TOKEN: 'ghp_mustnotleak1234567890abcdef',
  PAYMENTS_API_KEY: 'payments-key-must-not-leak-5555',
  DEPLOY_PASSWD: 'deploy-passwd-must-not-leak',
};
/** The values to hunt for: each whole value and the password inside each URL. */
const SECRET_VALUES = [...Object.values(APP_SECRETS), CLI_KEY, 'pg-pass-must-not-leak', 'mirror-pass-must-not-leak'];
const VISIBLE = { AQ_VISIBLE_SETTING: 'an-ordinary-setting-stays' };

function textOf(block: ToolResultBlock): string {
  return typeof block.content === 'string' ? block.content : JSON.stringify(block.content);
}

/** The tool results the CLI sent back to the model, across every request. */
function toolResults(fake: FakeAnthropic): string[] {
  return fake.requests.flatMap((r) => fake.toolResultsIn(r)).map(textOf);
}

function leaksIn(text: string): string[] {
  return SECRET_VALUES.filter((secret) => text.includes(secret));
}

/**
 * The real Claude Code CLI, run by the daemon against the loopback Messages API, whose scripted
 * model runs `env` in its shell and then pastes what it saw into its answer. The app's
 * environment holds fake secrets; none may reach the shell, the model, the database or Slack.
 */
describe("the app's secrets stay out of the agent's shell and what it reports (real Claude Code CLI)", () => {
  let h: Harness;
  let fake: FakeAnthropic;
  let slack: FakeSlack;
  let stopNotifier: () => void;
  let notifier: SlackNotifier;
  const saved: Record<string, string | undefined> = {};

  beforeAll(() => {
    for (const [name, value] of Object.entries({ ...APP_SECRETS, ...VISIBLE })) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
  });
  afterAll(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  beforeEach(async () => {
    fake = await FakeAnthropic.start();
    slack = await FakeSlack.start();
    // The key reaches the CLI as in the app: from the configuration, through claudeCodeOptions.
    h = await makeHarness({ env: { ANTHROPIC_API_KEY: CLI_KEY, ANTHROPIC_BASE_URL: fake.url } });
    notifier = new SlackNotifier(h.rt, new WebClient('xoxb-test', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } }));
    stopNotifier = notifier.start();
    await h.rt.exec('set_project_channel', { project_id: 'proj', channel_id: 'CPROJ' });
    await h.rt.exec('set_tool_policy', { project_id: 'proj', add: ['Bash(env)'] });
    const home = path.join(h.rt.home, 'claude-home');
    await mkdir(path.join(home, 'config'), { recursive: true });
    const claude = new ClaudeCodeAdapter({
      ...claudeCodeOptions(h.rt.config, () => undefined),
      maxRetries: 0,
      env: { HOME: home, CLAUDE_CONFIG_DIR: path.join(home, 'config') },
    });
    await h.start({ adapters: { claude }, git: new GitManagerTaskGit(new GitManager()), progressIntervalMs: 50 });
  });
  afterEach(async () => {
    stopNotifier();
    await h.cleanup();
    await slack.close();
    await fake.close();
  });

  /** Everything the app kept or said about a task: its results, its events, its Slack messages. */
  async function everythingAbout(taskId: string): Promise<string> {
    await notifier.idle();
    return JSON.stringify({
      result: await h.rt.db.taskResults.latest(taskId),
      task: await h.rt.exec('get_task', { task_id: taskId }),
      events: h.events.filter((e) => e.taskId === taskId),
      slack: slack.calls.map((c) => c.args),
    });
  }

  it("the shell's environment has none of them, and the agent's answer quoting it leaks none", async () => {
    fake.enqueue(
      { text: 'Let me look at my environment.', toolUses: [{ name: 'Bash', input: { command: 'env' } }] },
      (req: RecordedRequest) => {
        const seen = fake.toolResultsIn(req).map(textOf).join('\n');
        return { text: `My environment:\n${seen}` };
      },
    );
    const id = await h.task('Print the environment');
    await h.waitStatus(id, 'COMPLETED', 90_000);
    await slack.waitFor(
      () => slack.callsTo('chat.postMessage').some((c) => String(c.args.text).startsWith('✅')),
      'the completion reply',
      15_000,
    );

    // The CLI reached its model with the key it was given...
    expect(fake.requests.length).toBeGreaterThanOrEqual(2);
    expect(fake.requests.every((r) => r.headers['x-api-key'] === CLI_KEY)).toBe(true);
    // ...and the shell ran `env`, printing ordinary settings but no secret.
    const shell = toolResults(fake).join('\n');
    expect(shell).toContain('AQ_VISIBLE_SETTING=an-ordinary-setting-stays');
    expect(shell).toContain('PATH=');
    expect(leaksIn(shell)).toEqual([]);

    const summary = (await h.rt.db.taskResults.latest(id))!.summary!;
    expect(summary).toContain('AQ_VISIBLE_SETTING=an-ordinary-setting-stays');
    const kept = await everythingAbout(id);
    expect(kept).toContain('AQ_VISIBLE_SETTING');
    expect(leaksIn(kept)).toEqual([]);
  });

  it('secret values the agent writes anyway are redacted in its progress, answer, and Slack', async () => {
    // An agent that found the values elsewhere (a file, a log) and repeats them.
    fake.enqueue(
      {
        text: `Found the bot token ${APP_SECRETS.SLACK_BOT_TOKEN} in a log.`,
        toolUses: [{ name: 'Write', input: { file_path: path.join(h.workspace, 'found.txt'), content: 'found\n' } }],
      },
      {
        text: `Done. Database password: pg-pass-must-not-leak; AQ token ${APP_SECRETS.AQ_SOMETHING_TOKEN}; key ${CLI_KEY}.`,
      },
    );
    const id = await h.task('Look for credentials');
    await h.waitStatus(id, 'COMPLETED', 90_000);
    await slack.waitFor(
      () => slack.callsTo('chat.postMessage').some((c) => String(c.args.text).startsWith('✅')),
      'the completion reply',
      15_000,
    );
    const summary = (await h.rt.db.taskResults.latest(id))!.summary!;
    expect(summary).toBe('Done. Database password: [redacted]; AQ token [redacted]; key [redacted].');
    const progress = h
      .eventsOf('task_progress', id)
      .map((e) => String(e.payload.text))
      .join('\n');
    expect(progress).toContain('Found the bot token [redacted] in a log.');
    await waitFor(
      async () => slack.calls.some((c) => JSON.stringify(c.args).includes('AQ token [redacted]')),
      15_000,
      'the answer in Slack',
    );
    expect(leaksIn(await everythingAbout(id))).toEqual([]);
  });

  it("the app's own files and the agent CLIs' logins are hidden from the agent's shell, the rest of AQ_HOME is not", async () => {
    // The logins of Claude Code (in the home folder, and in CLAUDE_CONFIG_DIR) and of another agent CLI.
    const claudeHome = path.join(h.rt.home, 'claude-home');
    const logins = {
      [path.join(claudeHome, '.claude', '.credentials.json')]: 'claude-login-must-not-leak',
      [path.join(claudeHome, 'config', '.credentials.json')]: 'config-login-must-not-leak',
      [path.join(claudeHome, '.codex', 'auth.json')]: 'codex-login-must-not-leak',
    };
    for (const [file, note] of Object.entries(logins)) {
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, JSON.stringify({ note }));
    }
    // What the running app and aq keep there: the profiles of other agents, aq's log, the socket.
    const appFiles = await writeAppFiles(h.rt.config, 'app-file-must-not-leak');
    // The whole shell allowed: what holds here is the sandbox, the layer below the tool policy.
    await h.rt.exec('set_tool_policy', { project_id: 'proj', add: ['Bash'] });
    try {
      const files = [appFiles.ordinary, ...appFiles.hidden, appFiles.socket, ...Object.keys(logins)];
      // Then its own temporary folder, which lies among the other agents' (hidden) ones.
      const ownTemp = 'echo "TMPDIR=$TMPDIR"; echo kept for later > "$TMPDIR/scratch.txt"; cat "$TMPDIR/scratch.txt"';
      // The file tools reach the same folder: a command's output kept there is read back with Read.
      const readBack = (request: RecordedRequest): ScriptedAnswer => {
        const tmpdir = /TMPDIR=(\S+)/.exec(fake.toolResultsIn(request).map(textOf).join('\n'))?.[1] ?? '$TMPDIR';
        return { toolUses: [{ name: 'Read', input: { file_path: path.join(tmpdir, 'scratch.txt') } }] };
      };
      fake.enqueue({ toolUses: [{ name: 'Bash', input: { command: `cat ${files.join(' ')}; ${ownTemp}` } }] }, readBack, {
        text: 'Read them.',
      });
      const id = await h.task('Read the app files');
      await h.waitStatus(id, 'COMPLETED', 90_000);
      const shell = toolResults(fake).join('\n');
      const read = fake.toolResultsIn(fake.requests.at(-1)!).map(textOf).join('\n');
      expect(read).toContain('kept for later');
      expect(read).not.toMatch(/outside this task's workspace/);
      expect(shell).toContain(ORDINARY_TEXT);
      expect(shell).not.toContain('app-file-must-not-leak');
      for (const note of Object.values(logins)) expect(shell).not.toContain(note);
      expect(shell).not.toContain('SQLite format 3');
      expect(shell).toMatch(new RegExp(`TMPDIR=${agentTempDir(h.rt.config.home)}/claude-[^/]+/claude-\\d+\\nkept for later`));
    } finally {
      await appFiles.close();
    }
  });
});
