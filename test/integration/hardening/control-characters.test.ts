// @database-dependent: text with control characters is stored and read back.
import { ALL_COMMANDS } from '../../../src/commands';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { stringSlots } from './catalog-inputs';
import { expectCleanError } from './clean-error';

/**
 * NUL and other control characters in every string field of every command (nested fields and
 * JSON values included) are refused before the command runs, with a sentence naming the field.
 * The cases are generated from the catalog: a new command or field is covered automatically.
 */
const BAD_TEXT: Array<[string, string, RegExp]> = [
  ['NUL', 'a\u0000b', /contains a NUL character/],
  ['ESC', 'a\u001b[31mb', /contains the control character U\+001B/],
  ['C1 CSI', 'a\u009bb', /contains the control character U\+009B/],
  ['lone surrogate', 'a\ud800b', /is not valid Unicode text/],
];

const cases = ALL_COMMANDS.flatMap((command) =>
  stringSlots(command).flatMap((slot) => BAD_TEXT.map(([label, text, says]) => ({ command: command.name, slot, label, text, says }))),
);

describe('control characters in every string field of every command', () => {
  let rt: TestRuntime;
  beforeAll(async () => {
    rt = await makeTestRuntime();
    await rt.exec('create_project', { name: 'alpha' });
  });
  afterAll(() => rt.cleanup());

  it('covers every command that takes text', () => {
    const withText = ALL_COMMANDS.filter((c) => stringSlots(c).length > 0).map((c) => c.name);
    expect(new Set(cases.map((c) => c.command))).toEqual(new Set(withText));
    expect(withText.length).toBeGreaterThan(60);
  });

  const title = (c: (typeof cases)[number]) => `${c.command} ${c.slot.field}${c.slot.asJsonText ? ' as JSON text' : ''} (${c.label})`;

  it.each(cases.map((c) => [title(c), c] as const))('%s is refused', async (_title, c) => {
    const text = expectCleanError(await rt.exec(c.command, c.slot.input(c.text)));
    if (c.slot.asJsonText && !text.startsWith(`Field '${c.slot.field}' `)) {
      // Refused whole, naming the field: text JSON leaves unescaped (C1) is seen before parsing,
      // and a field whose schema takes no JSON text says it wants a list or an object.
      expect(text).toMatch(new RegExp(`^Field '${c.slot.top}' (contains|must be) `));
      return;
    }
    expect(text.startsWith(`Field '${c.slot.field}' `)).toBe(true);
    expect(text).toMatch(c.says);
  });

  it('checks JSON text again once the schema has parsed it', async () => {
    const trigger = JSON.stringify({ type: 'event', event_type: 'task_completed', note: 'a\u0000b' });
    expect(await rt.exec('create_hook', { project_id: 'alpha', name: 'h', prompt_template: 'p', trigger })).toEqual({
      error: "Field 'trigger.note' contains a NUL character (\\u0000), which cannot be stored or passed on; remove it.",
    });
    const steps = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const hook = { project_id: 'alpha', name: 'h', prompt_template: 'p', trigger: { type: 'periodic', interval_seconds: 60 } };
    expect(await rt.exec('create_hook', { ...hook, context_steps: steps })).toEqual({
      error: "Field 'context_steps' is nested more than 32 levels deep; send a flatter value.",
    });
    expect((await rt.exec('list_hooks', { project_id: 'alpha' })).hooks).toEqual([]);
  });

  it('refuses a control character in the name of a field inside a JSON value', async () => {
    const text = expectCleanError(
      await rt.exec('create_hook', { project_id: 'alpha', name: 'h', prompt_template: 'p', trigger: { 'type\u0000': 'event' } }),
    );
    expect(text).toBe("A field name inside 'trigger' contains a NUL character (\\u0000), which cannot be stored or passed on; remove it.");
  });

  it('keeps tabs and line breaks in free text, refuses them inside ids, and trims them at the ends of ids', async () => {
    const created = await rt.exec('create_task', {
      project_id: 'alpha',
      title: 'Tabs\tand\r\nbreaks',
      description: 'line 1\nline 2\ttabbed',
    });
    expect(created).toMatchObject({ title: 'Tabs\tand\r\nbreaks' });
    expect(await rt.exec('get_task', { task_id: created.created })).toMatchObject({ description: 'line 1\nline 2\ttabbed' });
    expect(await rt.exec('get_task', { task_id: 'a\nb' })).toEqual({
      error: "Field 'task_id' contains a tab or line break; an id is a single line of text.",
    });
    expect(await rt.exec('create_task', { project_id: 'alpha', title: 't', description: 'd', depends_on: ['x\ty'] })).toEqual({
      error: "Field 'depends_on[0]' contains a tab or line break; an id is a single line of text.",
    });
    expect(await rt.exec('get_task', { task_id: `${created.created}\n` })).toMatchObject({ id: created.created });
  });

  it('refuses values nested deeper than the limit, naming the top field', async () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 10_000; i++) deep = { a: deep };
    expect(await rt.exec('create_hook', { project_id: 'alpha', name: 'h', prompt_template: 'p', trigger: deep })).toEqual({
      error: "Field 'trigger' is nested more than 32 levels deep; send a flatter value.",
    });
    let shallow: unknown = 'leaf';
    for (let i = 0; i < 10; i++) shallow = { a: shallow };
    const ok = await rt.exec('create_hook', {
      project_id: 'alpha',
      name: 'h',
      prompt_template: 'p',
      trigger: { type: 'event', event_type: 'task_completed', extra: shallow },
    });
    expect(ok).toMatchObject({ created: 'h' });
  });
});
