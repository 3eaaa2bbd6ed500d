import { z } from 'zod';
import { modelCommands, toolDefinitions } from '../../../src/chat/tools';
import { ALL_COMMANDS } from '../../../src/commands';
import { defineCommand, modelAccessOf, type AnyCommand } from '../../../src/commands/catalog';

describe('model tools generated from the command catalog', () => {
  const tools = toolDefinitions(ALL_COMMANDS);

  it('offers every command except the excluded ones, in catalog order', () => {
    const excluded = ALL_COMMANDS.filter((c) => modelAccessOf(c) === 'excluded').map((c) => c.name);
    expect(excluded).toEqual(expect.arrayContaining(['restart_daemon', 'update_and_restart']));
    expect(tools.map((t) => t.name)).toEqual(ALL_COMMANDS.map((c) => c.name).filter((n) => !excluded.includes(n)));
    expect(modelCommands(ALL_COMMANDS)).toHaveLength(tools.length);
  });

  it('uses each command’s zod input as JSON Schema (an object, no $schema key) and a name the API accepts', () => {
    for (const tool of tools) {
      const command = ALL_COMMANDS.find((c) => c.name === tool.name)!;
      const { $schema: _drop, ...expected } = z.toJSONSchema(command.input) as Record<string, unknown>;
      expect(tool.inputSchema).toEqual(expected);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.inputSchema).not.toHaveProperty('$schema');
      expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(tool.description.length).toBeGreaterThan(0);
    }
  });

  it('tells the model which tools wait for a person', () => {
    const held = tools.filter((t) => modelAccessOf(ALL_COMMANDS.find((c) => c.name === t.name)!) === 'confirm');
    expect(held.map((t) => t.name)).toEqual(
      expect.arrayContaining(['delete_project', 'delete_task', 'delete_hook', 'orchestrator_control']),
    );
    for (const t of held) expect(t.description).toMatch(/must confirm this with a button/);
    expect(tools.find((t) => t.name === 'create_task')!.description).not.toMatch(/confirm this/);
  });

  it('follows the catalog: a new command becomes a tool with no other change', () => {
    const extra = defineCommand({
      name: 'wave_hello',
      group: 'system',
      kind: 'change',
      description: 'Wave.',
      input: z.object({ to: z.string().describe('Who') }),
      async run() {
        return { waved: true };
      },
    }) as unknown as AnyCommand;
    const [tool] = toolDefinitions([extra]);
    expect(tool).toEqual({
      name: 'wave_hello',
      description: 'Wave.',
      inputSchema: {
        type: 'object',
        properties: { to: { type: 'string', description: 'Who' } },
        required: ['to'],
        additionalProperties: false,
      },
    });
  });
});
