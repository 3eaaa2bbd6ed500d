// @scratch-on-disk: the real Claude Code CLI runs shell commands in a sandbox with a /dev of its own, where a workspace in /dev/shm is not.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { ClaudeCodeAdapter } from '../../../src/agents/claude-code';
import { DEFAULT_TOOL_POLICY, type AgentRequests, type PermissionAsk } from '../../../src/agents/agent-requests';
import { FakeAnthropic, type RecordedRequest, type ToolResultBlock } from '../../support/fake-anthropic';
import { makeTempDir } from '../../support/tmp';

jest.setTimeout(90_000);

function textOf(block: ToolResultBlock): string {
  return typeof block.content === 'string' ? block.content : JSON.stringify(block.content);
}

const toolNames = (r: RecordedRequest) => ((r.body.tools ?? []) as Array<{ name?: string }>).map((t) => t.name);

/**
 * The project's tool policy as the real Claude Code CLI applies it: allowed commands run
 * unasked (sandboxed), anything else reaches the permission callback, and a `WebFetch(domain:…)`
 * rule opens that host to sandboxed commands. People here are a recording stand-in; the
 * database-backed version is in test/integration/orchestrator/agent-requests.test.ts.
 */
describe('the tool policy with the real Claude Code CLI', () => {
  let fake: FakeAnthropic;
  let tmp: { dir: string; cleanup: () => Promise<void> };
  let workspace: string;
  let home: string;

  beforeEach(async () => {
    fake = await FakeAnthropic.start();
    tmp = await makeTempDir('aq-policy-');
    workspace = path.join(tmp.dir, 'ws');
    home = path.join(tmp.dir, 'home');
    await mkdir(workspace, { recursive: true });
    await mkdir(path.join(home, 'config'), { recursive: true });
  });
  afterEach(async () => {
    await fake.close();
    await tmp.cleanup();
  });

  const run = (agentRequests?: AgentRequests) =>
    new ClaudeCodeAdapter({
      apiKey: 'sk-ant-fake',
      baseUrl: fake.url,
      maxRetries: 0,
      env: { HOME: home, CLAUDE_CONFIG_DIR: path.join(home, 'config') },
      tempRoot: path.join(home, 'tmp'),
    }).run({
      taskId: 't-policy',
      prompt: 'Work.',
      cwd: workspace,
      signal: new AbortController().signal,
      ...(agentRequests && { agentRequests }),
    });
  const results = () => fake.requests.flatMap((r) => fake.toolResultsIn(r));

  it('runs allowed commands unasked, asks about the rest, and opens hosts the policy names', async () => {
    const asked: PermissionAsk[] = [];
    const people: AgentRequests = {
      canAsk: true,
      allowRules: async () => [...DEFAULT_TOOL_POLICY, 'Bash(curl:*)', 'WebFetch(domain:example.com)'],
      askPermission: async (ask) => {
        asked.push(ask);
        return { decision: 'deny', message: 'Not today.', by: 'U1' };
      },
      askQuestions: async () => ({ answered: false, message: 'unused' }),
    };
    fake.enqueue(
      { toolUses: [{ name: 'Bash', input: { command: 'curl -sS https://example.com/', description: 'Allowed host' } }] },
      { toolUses: [{ name: 'Bash', input: { command: 'curl -sS https://example.org/', description: 'Other host' } }] },
      { toolUses: [{ name: 'Bash', input: { command: 'make deploy', description: 'Deploy' } }] },
      { text: 'Done.' },
    );
    expect((await run(people)).status).toBe('completed');
    const [allowedHost, otherHost, deploy] = results();
    // No internet here: the proxy lets example.com through (and fails upstream); example.org is refused.
    expect(textOf(allowedHost)).not.toContain('not on the allow list');
    expect(textOf(otherHost)).toContain('host is not on the allow list');
    expect(textOf(deploy)).toBe('Not today.');
    expect(deploy.is_error).toBe(true);
    expect(asked).toEqual([
      expect.objectContaining({ tool: 'Bash', input: expect.objectContaining({ command: 'make deploy' }), rule: 'Bash(make deploy *)' }),
    ]);
    expect(toolNames(fake.requests[0])).toContain('AskUserQuestion');
  });

  it('with nobody to ask, hides AskUserQuestion and refuses calls outside the policy with a sentence', async () => {
    const people: AgentRequests = {
      canAsk: false,
      allowRules: async () => [...DEFAULT_TOOL_POLICY],
      askPermission: async () => {
        throw new Error('never asked');
      },
      askQuestions: async () => {
        throw new Error('never asked');
      },
    };
    fake.enqueue({ toolUses: [{ name: 'Bash', input: { command: 'make deploy', description: 'Deploy' } }] }, { text: 'Could not deploy.' });
    expect((await run(people)).status).toBe('completed');
    const [deploy] = results();
    expect(deploy.is_error).toBe(true);
    expect(textOf(deploy)).toContain('set_tool_policy');
    expect(toolNames(fake.requests[0])).not.toContain('AskUserQuestion');
  });
  it("gives the policy's whole tools through the permission callback, unasked, with Glob still offered and the guard first", async () => {
    const asked: PermissionAsk[] = [];
    const people: AgentRequests = {
      canAsk: true,
      allowRules: async () => [...DEFAULT_TOOL_POLICY],
      askPermission: async (ask) => {
        asked.push(ask);
        return { decision: 'deny', message: 'No.', by: 'U1' };
      },
      askQuestions: async () => ({ answered: false, message: 'unused' }),
    };
    fake.enqueue(
      { toolUses: [{ name: 'Write', input: { file_path: path.join(workspace, 'a.txt'), content: 'alpha\n' } }] },
      { toolUses: [{ name: 'Read', input: { file_path: path.join(workspace, 'a.txt') } }] },
      { toolUses: [{ name: 'Glob', input: { pattern: '*.txt' } }] },
      { toolUses: [{ name: 'Read', input: { file_path: path.join(home, 'config', 'x.json') } }] },
      { text: 'Done.' },
    );
    expect((await run(people)).status).toBe('completed');
    const [write, read, glob, outside] = results();
    expect(write.is_error).toBeFalsy();
    expect(textOf(read)).toContain('alpha');
    expect(textOf(glob)).toContain('a.txt');
    expect(glob.is_error).toBeFalsy();
    // The path guard still refuses what leaves the workspace.
    expect(outside.is_error).toBe(true);
    expect(textOf(outside)).toContain('outside this task');
    expect(asked).toEqual([]);
  });
});
