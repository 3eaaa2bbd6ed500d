import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

/** Hook steps that act on the app's machine follow run_command's admin rule. */
describe('hooks with shell or http steps are for admins', () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = await makeTestRuntime({ AQ_ADMINS: 'UADMIN' });
    await rt.exec('create_project', { name: 'alpha' });
  });
  afterEach(() => rt.cleanup());

  const asSlackUser = (userId: string, name: string, args: Record<string, unknown>) =>
    rt.handler.executeAny(name, args, { source: 'slack', userId });
  const hook = (name: string, steps: unknown[]) => ({
    project_id: 'alpha',
    name,
    trigger: { type: 'periodic', interval_seconds: 60 },
    prompt_template: 'Summarise {{step_0}}',
    context_steps: steps,
  });

  it.each([
    ['shell', [{ type: 'shell', command: 'cat /etc/passwd' }]],
    ['http', [{ type: 'http', url: 'http://169.254.169.254/latest/meta-data/' }]],
  ])('refuses a %s step from a Slack user outside AQ_ADMINS, on create and on edit', async (type, steps) => {
    const refused = await asSlackUser('U2', 'create_hook', hook('Sneaky', steps));
    expect(refused).toEqual({
      error: expect.stringContaining(`Hook steps of type ${type} run on the app's machine, so only admins may add them`),
    });
    expect((await rt.exec('list_hooks')).hooks).toEqual([]);

    expect(await asSlackUser('U2', 'create_hook', hook('Plain', [{ type: 'db_query', query: 'status' }]))).toMatchObject({
      created: 'plain',
    });
    expect(await asSlackUser('U2', 'edit_hook', { hook_id: 'plain', context_steps: steps })).toEqual({
      error: expect.stringContaining('only admins'),
    });
    expect(await asSlackUser('U2', 'edit_hook', { hook_id: 'plain', cooldown_seconds: 5 })).toEqual({
      updated: 'plain',
      fields: ['cooldown_seconds'],
    });

    expect(await asSlackUser('UADMIN', 'create_hook', hook('Trusted', steps))).toMatchObject({ created: 'trusted' });
    expect(await asSlackUser('UADMIN', 'edit_hook', { hook_id: 'plain', context_steps: steps })).toEqual({
      updated: 'plain',
      fields: ['context_steps'],
    });
  });
});
