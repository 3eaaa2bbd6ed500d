import { z } from 'zod';
import { ALL_COMMANDS } from '../../../src/commands';
import { COMMAND_KINDS, defineCommand, modelAccessOf, type AnyCommand, type CommandKind } from '../../../src/commands/catalog';

describe('every command declares its class', () => {
  it('gives each command in the catalog one of read, change, destructive, admin', () => {
    const unclassified = ALL_COMMANDS.filter((c) => !(COMMAND_KINDS as readonly string[]).includes(c.kind)).map((c) => c.name);
    expect(unclassified).toEqual([]);
    // Every class is in use, so none of them is a dead letter.
    expect(new Set(ALL_COMMANDS.map((c) => c.kind))).toEqual(new Set(COMMAND_KINDS));
  });

  it('classes known commands as their effects say', () => {
    const kindOf = (name: string) => ALL_COMMANDS.find((c) => c.name === name)?.kind;
    const expected: Record<string, CommandKind> = {
      list_tasks: 'read',
      get_task: 'read',
      create_task: 'change',
      approve_task: 'change',
      delete_task: 'destructive',
      delete_hook: 'destructive',
      delete_note: 'destructive',
      orchestrator_control: 'destructive',
      delete_project: 'admin',
      run_command: 'admin',
      restart_daemon: 'admin',
    };
    for (const [name, kind] of Object.entries(expected)) expect([name, kindOf(name)]).toEqual([name, kind]);
  });

  it('holds every destructive or admin command for a click when the model calls it', () => {
    for (const command of ALL_COMMANDS.filter((c) => c.kind === 'destructive' || c.kind === 'admin')) {
      expect([command.name, modelAccessOf(command)]).toEqual([command.name, expect.stringMatching(/^(confirm|excluded)$/)]);
    }
    expect(modelAccessOf(ALL_COMMANDS.find((c) => c.name === 'list_tasks')!)).toBe('allowed');
  });

  it('refuses a definition without a class, even one that escapes the type check', () => {
    const unclassified = { name: 'no_class', group: 'system', description: 'x', input: z.object({}), run: async () => ({}) };
    expect(() => defineCommand(unclassified as unknown as AnyCommand)).toThrow(/needs a kind: one of read, change, destructive, admin/);
  });
});

describe('command schemas are built on first use', () => {
  it('defines every command of the catalog with its schema as a function, built once when first read', () => {
    const eager = ALL_COMMANDS.filter((c) => typeof Object.getOwnPropertyDescriptor(c, 'input')?.get !== 'function').map((c) => c.name);
    expect(eager).toEqual([]);
    let builds = 0;
    const lazy = defineCommand({
      name: 'lazy_probe',
      group: 'system',
      kind: 'read',
      description: 'x',
      input: () => {
        builds++;
        return z.object({ n: z.number() });
      },
      run: async ({ n }) => ({ n }),
    });
    expect(builds).toBe(0);
    expect(lazy.input.safeParse({ n: 1 }).success).toBe(true);
    expect(lazy.input).toBe(lazy.input);
    expect(builds).toBe(1);
  });
});
