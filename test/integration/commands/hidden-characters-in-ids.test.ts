import { existsSync } from 'node:fs';
import path from 'node:path';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

/**
 * Ids made from names are typed into commands, shown in Slack and some name folders: a name
 * holding a character that changes how text reads without showing itself (a right-to-left
 * override, a zero-width space) is refused with the character named, and nothing is stored.
 */
describe('ids made from names hold no hidden characters', () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = await makeTestRuntime();
    await rt.exec('create_project', { name: 'alpha' });
  });
  afterEach(() => rt.cleanup());

  const OVERRIDE = 'fed\u202E-cba';
  const creations: Array<[string, (name: string) => Record<string, unknown>, () => Promise<number>]> = [
    ['create_project', (name) => ({ name }), async () => ((await rt.exec('list_projects')).projects as unknown[]).length - 1],
    ['create_agent', (name) => ({ name }), async () => ((await rt.exec('list_agents')).agents as unknown[]).length],
    [
      'create_hook',
      (name) => ({ project_id: 'alpha', name, trigger: { type: 'periodic', interval_seconds: 60 }, prompt_template: 'p' }),
      async () => ((await rt.exec('list_hooks')).hooks as unknown[]).length,
    ],
    [
      'create_automation',
      (name) => ({ name, kind: 'schedule', project_id: 'alpha', title: 't', description: 'd', cron: '0 3 * * *' }),
      async () => ((await rt.exec('list_automations')).automations as unknown[]).length,
    ],
    [
      'add_repo',
      (name) => ({ project_id: 'alpha', source: 'init', name }),
      async () => ((await rt.exec('list_repos')).repos as unknown[]).length,
    ],
    [
      'add_workspace',
      (name) => ({ project_id: 'alpha', source: 'link', path: rt.config.workspaceDir, name }),
      async () => ((await rt.exec('list_workspaces', { project_id: 'alpha' })).workspaces as unknown[]).length,
    ],
  ];

  it.each(creations)(
    '%s refuses a name with a right-to-left override, a zero-width space or a soft hyphen',
    async (command, args, stored) => {
      for (const [name, code] of [
        [OVERRIDE, 'U+202E'],
        ['ab\u200Bc', 'U+200B'],
        ['re\u00ADpo', 'U+00AD'],
        ['\u2066x\u2069', 'U+2066'],
      ]) {
        const result = await rt.exec(command, args(name));
        expect(result).toEqual({ error: expect.stringContaining(`the invisible character ${code}`) });
        expect(String(result.error)).toContain('remove it from the name');
      }
      expect(await stored()).toBe(0);
      expect(existsSync(path.join(rt.config.workspaceDir, 'fed\u202E-cba'))).toBe(false);
    },
  );

  it('takes names whose emoji are joined sequences: a family and a subdivision flag', async () => {
    const family = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}';
    const scotland = '\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}';
    expect(await rt.exec('create_project', { name: `${family} Team` })).toMatchObject({ created: `${family.toLowerCase()}-team` });
    expect(await rt.exec('create_agent', { name: `${scotland} bot` })).toMatchObject({ created: `${scotland}-bot` });
    // A joiner outside an emoji sequence is still refused.
    expect(await rt.exec('create_agent', { name: 'b\u200Dot' })).toEqual({ error: expect.stringContaining('U+200D') });
  });
});
