import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { ClaudeCodeAdapter } from '../../../src/agents/claude-code';
import { GitManager } from '../../../src/git/git-manager';
import { GitManagerTaskGit } from '../../../src/orchestrator/task-git';
import { FakeAnthropic, type ScriptedError } from '../../support/fake-anthropic';
import { makeHarness, waitFor, type Harness } from '../../integration/orchestrator/harness';

jest.setTimeout(90_000);

/**
 * The real Claude Code CLI meets a usage limit from the loopback Messages API: the task waits
 * until the reset the API names (in its response headers, or in the stream's rate-limit event),
 * not a fixed backoff, and its pause reason says so plainly.
 */
describe('usage limits pause a task until their reset (real Claude Code CLI)', () => {
  let h: Harness;
  let fake: FakeAnthropic;

  beforeEach(async () => {
    fake = await FakeAnthropic.start();
    h = await makeHarness();
  });
  afterEach(async () => {
    await h.cleanup();
    await fake.close();
  });

  async function startWithClaude(env: Record<string, string> = {}): Promise<void> {
    const home = path.join(h.rt.home, 'claude-home');
    await mkdir(path.join(home, 'config'), { recursive: true });
    const claude = new ClaudeCodeAdapter({
      apiKey: 'sk-ant-fake',
      baseUrl: fake.url,
      maxRetries: 0,
      env: { HOME: home, CLAUDE_CONFIG_DIR: path.join(home, 'config'), ...env },
      tempRoot: path.join(home, 'tmp'),
    });
    await h.start({ adapters: { claude }, git: new GitManagerTaskGit(new GitManager()) });
  }

  const usageLimit = (headers: Record<string, string>): ScriptedError => ({
    error: { status: 429, type: 'rate_limit_error', message: "You've hit your limit", headers },
  });

  async function pausedTask(title: string) {
    const id = await h.task(title);
    await h.waitStatus(id, 'PAUSED', 60_000);
    const task = (await h.rt.db.tasks.get(id))!;
    const paused = await waitFor(async () => h.eventsOf('task_paused', id)[0]);
    return { task, paused };
  }

  it('waits for the reset named by the anthropic-ratelimit-*-reset headers of the refused request', async () => {
    const reset = new Date(Math.ceil(Date.now() / 1000) * 1000 + 2 * 3600_000);
    fake.enqueue(
      usageLimit({
        'anthropic-ratelimit-requests-reset': new Date(Date.now() + 30_000).toISOString(),
        'anthropic-ratelimit-tokens-reset': reset.toISOString(),
      }),
    );
    await startWithClaude();
    const { task, paused } = await pausedTask('Limited by tokens');
    expect(task.resumeAfter).toEqual(reset);
    const at = `${reset.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
    expect(task.pauseReason).toBe(
      `Usage limit until ${at}, when the API says it resets; the task resumes then by itself. The API said: API Error: Request rejected (429) · You've hit your limit`,
    );
    expect(task.pauseReason).not.toMatch(/success/i);
    expect(paused.payload).toMatchObject({ reason: task.pauseReason, resume_after: reset.toISOString() });
  });

  it('waits for retry-after when the API gives one', async () => {
    const before = Date.now();
    fake.enqueue(usageLimit({ 'retry-after': '5400' }));
    await startWithClaude();
    const { task } = await pausedTask('Told to retry later');
    const wait = task.resumeAfter!.getTime() - before;
    // 90 minutes from the refusal, not the 60 s backoff.
    expect(wait).toBeGreaterThanOrEqual(5400_000);
    expect(wait).toBeLessThan(5400_000 + 60_000);
    expect(task.pauseReason).toMatch(/^Usage limit until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC, when the API says it resets/);
  });

  it("waits for the reset of a subscription's rate-limit event, and says the limit plainly", async () => {
    const reset = Math.round(Date.now() / 1000) + 3 * 3600;
    fake.enqueue(
      usageLimit({
        'anthropic-ratelimit-unified-status': 'rejected',
        'anthropic-ratelimit-unified-reset': String(reset),
        'anthropic-ratelimit-unified-representative-claim': 'five_hour',
      }),
    );
    // A subscription login: the CLI turns the unified headers into a rate_limit_event.
    await startWithClaude({ ANTHROPIC_API_KEY: '', CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-fake' });
    const { task } = await pausedTask('Subscription limit');
    expect(task.resumeAfter).toEqual(new Date(reset * 1000));
    expect(task.pauseReason).toMatch(/The API said: You've hit your 5-hour limit · resets/);
    expect(task.pauseReason).not.toMatch(/success/i);
  });

  it('without any reset time, backs off and says that no reset time was given', async () => {
    fake.enqueue(usageLimit({}));
    await startWithClaude();
    const { task } = await pausedTask('No hint');
    // The 60 s backoff from the moment of the pause, which is already past.
    expect(task.resumeAfter!.getTime()).toBeLessThanOrEqual(Date.now() + 60_000);
    expect(task.pauseReason).toMatch(/^Rate limit with no reset time given; the task tries again at .* UTC\. The API said: /);
    expect(task.pauseReason).not.toMatch(/success/i);
  });
});
