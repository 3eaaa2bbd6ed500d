import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { AcpAdapter } from '../../../src/agents/acp';
import type { AgentProfile } from '../../../src/agents/profiles';
import { GitManager } from '../../../src/git/git-manager';
import { GitManagerTaskGit } from '../../../src/orchestrator/task-git';
import { gitOut } from '../../support/git-fixtures';
import { addFileCall, assistantMessage, FakeResponsesApi } from '../../support/openai/fake-responses';
import { makeHarness, type Harness } from '../../integration/orchestrator/harness';

jest.setTimeout(180_000);

const CODEX_ACP = path.join(__dirname, '..', '..', '..', 'node_modules', '.bin', 'codex-acp');

/** The profile README shows for Codex, pointed at a model provider whose base URL is the fake. */
function codexProfile(baseUrl: string, codexHome: string): AgentProfile {
  return {
    name: 'codex',
    command: CODEX_ACP,
    args: [
      '-c',
      'model_provider="fake"',
      '-c',
      `model_providers.fake={name="fake",base_url="${baseUrl}",wire_api="responses",env_key="FAKE_OPENAI_KEY"}`,
    ],
    env: { CODEX_HOME: codexHome, FAKE_OPENAI_KEY: 'test-key' },
    sandbox: true,
    writable: [codexHome],
  };
}

/** The real Codex (codex-acp) through the ACP backend, its model a loopback fake Responses API. */
describe('a task on Codex through ACP (codex-acp against a fake Responses API)', () => {
  let h: Harness;
  let api: FakeResponsesApi;

  afterEach(async () => {
    await h?.cleanup();
    await api?.stop();
  });

  it("writes a file with Codex's apply_patch tool, completes and merges", async () => {
    api = new FakeResponsesApi([
      { output: [addFileCall('call_1', 'hello.txt', 'Hello from Codex')], usage: { input_tokens: 1200, output_tokens: 80 } },
      { output: [assistantMessage('msg_2', 'Wrote hello.txt.')], usage: { input_tokens: 1400, output_tokens: 20 } },
    ]);
    await api.start();
    h = await makeHarness({ agents: 0 });
    const codexHome = path.join(h.rt.home, 'codex-home');
    await mkdir(codexHome, { recursive: true });
    await h.rt.db.agents.create({ id: 'codex-1', name: 'Codex 1', type: 'acp', backend: 'acp', profile: 'codex' });
    const acp = new AcpAdapter({
      profiles: [codexProfile(api.baseUrl, codexHome)],
      hiddenPaths: [h.rt.config.databasePath],
      tempRoot: path.join(h.rt.home, 'agent-tmp'),
    });
    await h.start({ adapters: { acp }, git: new GitManagerTaskGit(new GitManager()), progressIntervalMs: 20 });

    const id = await h.task('Say hello', { description: 'Write hello.txt saying Hello from Codex.' });
    await h.waitStatus(id, 'COMPLETED', 150_000);

    expect(await gitOut(h.origin, 'show', 'main:hello.txt')).toBe('Hello from Codex');
    expect(await h.rt.exec('get_task', { task_id: id })).toMatchObject({ backend: 'acp:codex' });
    const tools = api.requests[0].body.tools?.map((tool) => `${tool.type}:${tool.name}`);
    expect(tools).toContain('custom:apply_patch');
    expect(JSON.stringify(api.requests[0].body.input)).toContain('Write hello.txt saying Hello from Codex.');
    expect(JSON.stringify(api.requests[1].body.input)).toContain('custom_tool_call_output');
    const result = await h.rt.db.taskResults.latest(id);
    expect(result?.summary).toContain('Wrote hello.txt.');
    // codex-acp 0.16.0 reports only context size (`usage_update` without cost) and no `usage` on
    // its prompt answers, so the tokens the fake reported stay unknown rather than guessed.
    expect(result).toMatchObject({ tokensUsed: null, costUsd: null });
  });
});
