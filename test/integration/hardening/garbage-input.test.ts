// @database-dependent: out-of-range values reach SQL, whose limits differ per database.
import { ALL_COMMANDS } from '../../../src/commands';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { fieldsOf, GARBAGE, plausible } from './catalog-inputs';
import { leaksIn } from './clean-error';

/**
 * Every command, run with input of every wrong kind (and with hostile text of the right kind in
 * every field at once, so the command body runs), either succeeds or answers `{error}` alone with
 * a sentence of its own: never SQL, a stack, a class name or a driver code, and never the fallback
 * sentence for unexpected errors. Generated from the catalog.
 */
function inputsFor(command: (typeof ALL_COMMANDS)[number]): Array<Record<string, unknown>> {
  const fields = Object.entries(fieldsOf(command));
  const inputs: Array<Record<string, unknown>> = [{}];
  for (const [name] of fields) for (const value of GARBAGE) inputs.push({ [name]: value });
  for (const value of GARBAGE) inputs.push(Object.fromEntries(fields.map(([name]) => [name, value])));
  for (const text of GARBAGE.filter((v): v is string => typeof v === 'string')) {
    inputs.push(Object.fromEntries(fields.map(([name, schema]) => [name, plausible(schema, text)])));
  }
  return inputs;
}

describe('garbage input to every command', () => {
  let rt: TestRuntime;
  beforeAll(async () => {
    rt = await makeTestRuntime();
    await rt.exec('create_project', { name: 'alpha' });
    await rt.exec('create_task', { project_id: 'alpha', title: 't', description: 'd' });
  });
  afterAll(() => rt.cleanup());

  it.each(ALL_COMMANDS.map((c) => [c.name]))('%s answers a result or a clean error sentence', async (name) => {
    const command = ALL_COMMANDS.find((c) => c.name === name);
    if (!command) throw new Error(`no command ${name}`);
    const problems: Array<{ input: string; error: unknown; leaks: string[] }> = [];
    for (const input of inputsFor(command)) {
      const result = await rt.exec(name, input);
      if (!('error' in result)) continue;
      const error = result.error;
      const leaks = typeof error === 'string' ? leaksIn(error) : ['not a string'];
      if (Object.keys(result).length !== 1) leaks.push('keys besides error');
      if (typeof error === 'string' && error.trim() === '') leaks.push('empty');
      // Bad input is expected input: it gets its own sentence, never the fallback for surprises.
      if (typeof error === 'string' && error.startsWith('Something went wrong')) leaks.push('unanticipated');
      if (leaks.length > 0) problems.push({ input: JSON.stringify(input).slice(0, 200), error, leaks });
    }
    expect(problems).toEqual([]);
  });
});
