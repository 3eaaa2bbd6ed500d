import { MAX_INPUT_TEXT, TEXT_LIMITS } from '../../../src/commands/input-guard';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

const MEGABYTE = 'x'.repeat(1024 * 1024);

/** Every text field has a limit, enforced at the command layer with a sentence naming it. */
describe('bounded text input', () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = await makeTestRuntime();
    await rt.exec('create_project', { name: 'demo' });
  });
  afterEach(() => rt.cleanup());

  it('refuses a 1 MB description, and a title, name or notes field over its limit, naming the field and limit', async () => {
    expect(await rt.exec('create_task', { project_id: 'demo', title: 'Big', description: MEGABYTE })).toEqual({
      error:
        "Field 'description' is 1,048,576 characters long; the limit is 32,000. Shorten it (long material belongs in a note: write_note).",
    });
    expect(await rt.exec('create_task', { project_id: 'demo', title: 't'.repeat(301), description: 'd' })).toEqual({
      error: expect.stringMatching(/^Field 'title' is 301 characters long; the limit is 300\./),
    });
    expect(await rt.exec('create_project', { name: 'n'.repeat(TEXT_LIMITS.name + 1) })).toEqual({
      error: expect.stringContaining("Field 'name' is 201 characters long; the limit is 200."),
    });
    expect(await rt.exec('write_note', { project_id: 'demo', title: 'Big', content: 'c'.repeat(TEXT_LIMITS.content + 1) })).toEqual({
      error: expect.stringContaining("Field 'content' is 200,001 characters long; the limit is 200,000."),
    });
    expect(await rt.exec('get_task', { task_id: 'i'.repeat(1001) })).toEqual({
      error: expect.stringContaining("Field 'task_id' is 1,001"),
    });
    expect(((await rt.exec('list_tasks', { project_id: 'demo' })) as { tasks: unknown[] }).tasks).toEqual([]);
  });

  it('takes text up to the limit, and bounds text nested in JSON values and the call as a whole', async () => {
    const created = await rt.exec('create_task', { project_id: 'demo', title: 't'.repeat(300), description: 'd'.repeat(32_000) });
    expect(created).toMatchObject({ created: expect.any(String) });
    const hook = {
      project_id: 'demo',
      name: 'h',
      prompt_template: 'p',
      trigger: { type: 'periodic', interval_seconds: 60, note: 'n'.repeat(32_001) },
    };
    expect(await rt.exec('create_hook', hook)).toEqual({
      error: expect.stringContaining("Field 'trigger.note' is 32,001 characters long"),
    });
    const many = Array.from({ length: 20 }, () => 'w'.repeat(30_000));
    expect(await rt.exec('create_hook', { ...hook, trigger: { type: 'periodic', interval_seconds: 60 }, context_steps: many })).toEqual({
      error: `This call holds more than ${MAX_INPUT_TEXT.toLocaleString('en-US')} characters of text; send less at once.`,
    });
  });
});
