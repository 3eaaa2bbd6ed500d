import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ALL_COMMANDS } from '../../../src/commands';
import { defineCommand } from '../../../src/commands/catalog';
import { loggedErrorText } from '../../../src/commands/error-text';
import { GitError } from '../../../src/git/git-errors';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { leaksIn } from './clean-error';

const COMMANDS_DIR = path.join(__dirname, '../../../src/commands');

/** A command that, like sync_workspaces, reports each item's failure inside its result. */
const perItem = defineCommand({
  name: 'fails_per_item',
  group: 'system',
  kind: 'change',
  description: 'Fails for some items.',
  input: z.object({}),
  async run(_args, ctx) {
    const failures: unknown[] = [
      Object.assign(new Error("insert into `events` values ('x') - SQLITE_ERROR: unrecognized token"), { code: 'SQLITE_ERROR' }),
      new TypeError("Cannot read properties of undefined (reading 'path')"),
      new GitError("Branch 'feature' not found."),
    ];
    return { items: failures.map((err, i) => ({ item: i, error: loggedErrorText(err, ctx.log, 'fails_per_item') })) };
  },
});

describe('errors inside results', () => {
  let rt: TestRuntime;
  const logs: string[] = [];
  beforeAll(async () => {
    rt = await makeTestRuntime({}, { commands: [...ALL_COMMANDS, perItem], log: (m) => logs.push(m) });
  });
  afterAll(() => rt.cleanup());

  it('are sentences for people; the details of unexpected ones go to the log', async () => {
    const { items } = (await rt.exec('fails_per_item')) as { items: Array<{ error: string }> };
    expect(items.map((i) => i.error)).toEqual([
      "Something went wrong running fails_per_item; the details are in the app's log.",
      "Something went wrong running fails_per_item; the details are in the app's log.",
      "Branch 'feature' not found.",
    ]);
    for (const { error } of items) expect(leaksIn(error)).toEqual([]);
    expect(logs).toHaveLength(2);
    expect(logs[0]).toContain('SQLITE_ERROR');
    expect(logs[1]).toContain('TypeError');
  });

  // The rule is one function (errorText); a command reading an error's message itself would
  // put a library's text (SQL, a driver code, a class name) in front of people.
  it('no command reads an error message itself, except of errors written for people', async () => {
    const readers = /\b(err|error|e)\b(\s+as\s+\w+\))?\.message\b|String\(\s*(err|error|e)\s*\)|\$\{\s*(err|error|e)\s*\}/;
    // taskOperation hands its wording the message of a TaskOperationError, a sentence of ours.
    const forPeople = /instanceof (GitError|TaskOperationError|CommandError)\)|taskOperation\(/;
    const found: string[] = [];
    for (const file of (await readdir(COMMANDS_DIR)).filter((f) => f.endsWith('.ts') && f !== 'error-text.ts')) {
      const lines = (await readFile(path.join(COMMANDS_DIR, file), 'utf8')).split('\n');
      lines.forEach((line, i) => {
        if (readers.test(line) && !forPeople.test(line)) found.push(`${file}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(found).toEqual([]);
  });
});
