import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { query, type SDKMessage, type SDKResultMessage } from '@anthropic-ai/claude-agent-sdk';
import { makeClaudeEnv } from '../../support/claude-env';
import { FakeAnthropic } from '../../support/fake-anthropic';
import { makeTempDir } from '../../support/tmp';

jest.setTimeout(60_000);

const timings: Record<string, number> = {};

/** A real git repository with one commit, for the CLI to work in. */
async function makeRepo(dir: string): Promise<string> {
  const repo = path.join(dir, 'repo');
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', ...args], { cwd: repo, stdio: 'pipe' });
  execFileSync('git', ['init', '-q', '-b', 'main', repo]);
  await writeFile(path.join(repo, 'README.md'), '# repo\n');
  git('add', 'README.md');
  git('commit', '-q', '-m', 'initial');
  return repo;
}

/** Runs query() to the end; keeps every message and the error thrown after an error result, if any. */
async function run(
  prompt: string,
  options: Parameters<typeof query>[0]['options'],
): Promise<{ messages: SDKMessage[]; result?: SDKResultMessage; thrown?: unknown; ms: number }> {
  const messages: SDKMessage[] = [];
  const started = Date.now();
  let thrown: unknown;
  try {
    for await (const message of query({ prompt, options })) messages.push(message);
  } catch (error) {
    thrown = error;
  }
  const result = messages.find((m): m is SDKResultMessage => m.type === 'result');
  return { messages, result, thrown, ms: Date.now() - started };
}

/** The REAL Claude Code CLI (through the Agent SDK) against the fake Messages API, offline. */
describe('FakeAnthropic with the real Claude Code CLI', () => {
  let fake: FakeAnthropic;
  let tmp: { dir: string; cleanup: () => Promise<void> };
  let repo: string;
  let stderr: string[];

  beforeEach(async () => {
    fake = await FakeAnthropic.start();
    tmp = await makeTempDir('aq-claude-');
    repo = await makeRepo(tmp.dir);
    stderr = [];
  });
  afterEach(async () => {
    await fake.close();
    await tmp.cleanup();
  });
  afterAll(() => {
    process.stdout.write(`real Claude Code CLI against FakeAnthropic, wall time (ms): ${JSON.stringify(timings)}\n`);
  });

  function options(extra: Record<string, unknown> = {}) {
    return {
      cwd: repo,
      env: makeClaudeEnv(fake.url, tmp.dir),
      settingSources: [],
      permissionMode: 'acceptEdits' as const,
      maxTurns: 5,
      model: 'fake-model-1',
      stderr: (data: string) => stderr.push(data),
      ...extra,
    };
  }

  it('a scripted Write tool_use creates the file; usage sums what the fake reported; the tool_result reaches the fake', async () => {
    const file = path.join(repo, 'hello.txt');
    fake.enqueue(
      {
        text: 'Writing the file.',
        toolUses: [{ name: 'Write', input: { file_path: file, content: 'hello from fake\n' } }],
        usage: { input_tokens: 120, output_tokens: 17 },
      },
      { text: 'Done: wrote hello.txt', usage: { input_tokens: 150, output_tokens: 8 } },
    );

    const { messages, result, thrown, ms } = await run('Create hello.txt', options());
    timings.writeScenario = ms;

    expect(thrown).toBeUndefined();
    await expect(readFile(file, 'utf8')).resolves.toBe('hello from fake\n');
    expect(result).toMatchObject({ type: 'result', subtype: 'success', is_error: false, result: 'Done: wrote hello.txt', num_turns: 2 });
    expect(result!.usage).toMatchObject({ input_tokens: 270, output_tokens: 25 });
    expect(messages[0]).toMatchObject({ type: 'system', subtype: 'init', model: 'fake-model-1', cwd: repo });

    expect(fake.requests).toHaveLength(2);
    expect(fake.unscriptedCount).toBe(0);
    const [first, second] = fake.requests;
    expect(first).toMatchObject({ path: '/v1/messages', query: '?beta=true', body: { model: 'fake-model-1', stream: true } });
    expect(first.headers['x-api-key']).toBe('sk-ant-fake');
    expect((first.body.tools as Array<{ name: string }>).map((t) => t.name)).toContain('Write');
    const [toolResult] = fake.toolResultsIn(second);
    expect(toolResult).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_1' });
    expect(toolResult.is_error).toBeFalsy();
    expect(JSON.stringify(toolResult.content)).toContain('hello.txt');
  });

  it('a 401 from the fake ends the run with an error result, then query() throws', async () => {
    fake.enqueue({ error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } });
    const { result, thrown, ms } = await run('Say hi', options());
    timings.auth401 = ms;

    expect(result).toMatchObject({ type: 'result', is_error: true });
    expect(thrown).toBeInstanceOf(Error);
    expect(String((thrown as Error).message)).toMatch(/error result|API key|authentication/i);
    expect(fake.requests.length).toBeGreaterThanOrEqual(1);
  });
});
