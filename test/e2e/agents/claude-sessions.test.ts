import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { ClaudeCodeAdapter } from '../../../src/agents/claude-code';
import { FakeAnthropic } from '../../support/fake-anthropic';
import { makeTempDir } from '../../support/tmp';

jest.setTimeout(120_000);

/**
 * A follow-up resumes its task's last session, which Claude Code keeps under the HOME of the
 * machine that ran it. When another worker picks the follow-up up, that session is not there:
 * the run starts a new session with the whole task instead of failing. Real Claude Code CLI,
 * loopback Messages API.
 */
describe('a session that is not on this machine (real Claude Code CLI)', () => {
  let fake: FakeAnthropic;
  let tmp: { dir: string; cleanup: () => Promise<void> };

  beforeEach(async () => {
    fake = await FakeAnthropic.start();
    tmp = await makeTempDir('aq-sessions-');
  });
  afterEach(async () => {
    await fake.close();
    await tmp.cleanup();
  });

  it('starts a new session with the whole task and what the last run said, and completes', async () => {
    const home = path.join(tmp.dir, 'home');
    const workspace = path.join(tmp.dir, 'workspace');
    await mkdir(path.join(home, 'config'), { recursive: true });
    await mkdir(workspace, { recursive: true });
    const logs: string[] = [];
    const claude = new ClaudeCodeAdapter({
      apiKey: 'sk-ant-fake',
      baseUrl: fake.url,
      maxRetries: 0,
      env: { HOME: home, CLAUDE_CONFIG_DIR: path.join(home, 'config') },
      tempRoot: path.join(home, 'tmp'),
      log: (line) => logs.push(line),
    });
    fake.enqueue({ text: 'Renamed it everywhere.' });
    const elsewhere = randomUUID();

    const outcome = await claude.run({
      taskId: 't-moved',
      prompt: 'Follow-up from the task thread: rename it everywhere.',
      freshPrompt: 'WHOLE TASK: rename the helper.\n\n## Follow-up instruction\nrename it everywhere.',
      resumeSessionId: elsewhere,
      cwd: workspace,
      signal: new AbortController().signal,
    });

    expect(outcome).toMatchObject({ status: 'completed', summary: 'Renamed it everywhere.' });
    expect(outcome.sessionId).toBeTruthy();
    expect(outcome.sessionId).not.toBe(elsewhere);
    expect(fake.requests).toHaveLength(1);
    expect(JSON.stringify(fake.requests[0].body.messages)).toContain('WHOLE TASK: rename the helper.');
    expect(logs.join('\n')).toContain(`session ${elsewhere} is not on this machine`);
  });
});
