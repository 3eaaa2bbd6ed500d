import { createHookModelRunner } from '../../../src/chat/hook-runner';
import { HookEngine } from '../../../src/orchestrator/hooks';
import { FakeAnthropic } from '../../support/fake-anthropic';
import { makeTestRuntime } from '../../support/runtime';
import { orchestratorCommands } from '../../../src/commands/orchestrator-commands';

it('runs a hook prompt through the real SDK, letting the model call commands, and records real tokens', async () => {
  const fake = await FakeAnthropic.start();
  const rt = await makeTestRuntime({ ANTHROPIC_API_KEY: 'sk-fake', ANTHROPIC_BASE_URL: fake.url, AQ_CHAT_MODEL: 'fake-model-1' });
  try {
    await rt.exec('create_project', { name: 'ops' });
    await rt.db.hooks.create({
      id: 'triage',
      projectId: 'ops',
      name: 'triage',
      trigger: { type: 'event', event_type: 'task_failed' },
      contextSteps: [{ type: 'shell', command: 'echo 3 failing tests' }],
      promptTemplate: 'CI says: {{step_0}}',
      cooldownSeconds: 3600,
      llmConfig: null,
    });
    fake.enqueue(
      {
        toolUses: [{ name: 'create_task', input: { title: 'Fix failing tests', description: 'Three tests fail in CI.' } }],
        usage: { input_tokens: 100, output_tokens: 20 },
      },
      { text: 'Created a task to fix the tests.', usage: { input_tokens: 150, output_tokens: 10 } },
    );
    const engine = new HookEngine({
      db: rt.db,
      events: rt.events,
      commands: orchestratorCommands((name, args) => rt.handler.executeAny(name, args, { source: 'hook' })),
      runModel: createHookModelRunner({
        provider: rt.chatProvider!,
        createHandler: () => rt.createHandler(),
        workspaceDir: rt.config.workspaceDir,
      }),
    });
    expect(await engine.fire('triage')).toBeNull();
    await engine.idle();
    expect(fake.requests[0].body.messages).toEqual([{ role: 'user', content: 'CI says: 3 failing tests\n' }]);
    const runs = (await rt.exec('list_hook_runs', { hook_id: 'triage' })) as { runs: Array<{ status: string; tokens_used: number }> };
    expect(runs.runs[0]).toMatchObject({ status: 'completed', tokens_used: 280 });
    expect(((await rt.exec('list_tasks', { project_id: 'ops' })) as { tasks: Array<{ title: string }> }).tasks.map((t) => t.title)).toEqual(
      ['Fix failing tests'],
    );
  } finally {
    await rt.cleanup();
    await fake.close();
  }
});
