// @database-dependent: the database's own errors must be turned into sentences.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ALL_COMMANDS } from '../../../src/commands';
import { CommandError, defineCommand } from '../../../src/commands/catalog';
import { GitError } from '../../../src/git/git-errors';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { expectCleanError } from './clean-error';

/** Commands that fail in each way a real command can, run through the real handler. */
const failing = (name: string, fail: (ctx: { home: string }) => Promise<never> | never) =>
  defineCommand({
    name,
    group: 'system',
    kind: 'change',
    description: `Fails: ${name}`,
    input: z.object({}),
    async run(_args, ctx) {
      return fail({ home: ctx.config.home });
    },
  });

const DRIVER_ERROR = "select `t0`.* from `tasks` as `t0` where `t0`.`id` = 'a' limit 1 - SQLITE_ERROR: unrecognized token";

const TEST_COMMANDS = [
  failing('fails_with_sql', () => {
    throw Object.assign(new Error(DRIVER_ERROR), { code: 'SQLITE_ERROR' });
  }),
  failing('fails_with_type_error', () => {
    const value = null as unknown as { field: string };
    return value.field as never;
  }),
  failing('fails_with_node_code', () => {
    throw Object.assign(new TypeError('The "path" argument must be of type string. Received null'), { code: 'ERR_INVALID_ARG_TYPE' });
  }),
  failing('fails_with_a_string', () => {
    throw 'raw string thrown';
  }),
  failing('fails_reading_a_file', async ({ home }) => {
    await readFile(path.join(home, 'no-such-file.txt'));
    throw new Error('unreachable');
  }),
  failing('fails_for_people', () => {
    throw new CommandError("Task 'x' not found.");
  }),
  failing('fails_in_git', () => {
    throw new GitError("Branch 'feature' not found.");
  }),
];

describe('error text', () => {
  let rt: TestRuntime;
  const logs: string[] = [];
  beforeAll(async () => {
    rt = await makeTestRuntime({}, { commands: [...ALL_COMMANDS, ...TEST_COMMANDS], log: (m) => logs.push(m) });
  });
  afterAll(() => rt.cleanup());
  beforeEach(() => logs.splice(0));

  it.each(['fails_with_sql', 'fails_with_type_error', 'fails_with_node_code', 'fails_with_a_string'])(
    '%s answers a plain sentence and logs the details',
    async (name) => {
      expect(await rt.exec(name)).toEqual({ error: `Something went wrong running ${name}; the details are in the app's log.` });
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatch(new RegExp(`^Command ${name} failed: `));
    },
  );

  it('keeps the SQL and the stack in the log only', async () => {
    expectCleanError(await rt.exec('fails_with_sql'));
    expect(logs[0]).toContain('SQLITE_ERROR');
    expect(logs[0]).toMatch(/\n\s+at /);
  });

  it('tells a file system failure by what and where, without the code', async () => {
    const text = expectCleanError(await rt.exec('fails_reading_a_file'));
    expect(text).toBe(`Not found: ${path.join(rt.home, 'no-such-file.txt')}.`);
  });

  it('passes sentences written for people through, and does not log them', async () => {
    expect(await rt.exec('fails_for_people')).toEqual({ error: "Task 'x' not found." });
    expect(await rt.exec('fails_in_git')).toEqual({ error: "Branch 'feature' not found." });
    expect(logs).toEqual([]);
  });

  it('answers a clean error for a NUL in a real command that used to reach SQLite', async () => {
    const text = expectCleanError(await rt.exec('set_task_status', { task_id: 'a\u0000b', status: 'READY' }), "'task_id'");
    expect(text).not.toMatch(/SQLITE|select/i);
    expect(logs).toEqual([]);
  });
});
