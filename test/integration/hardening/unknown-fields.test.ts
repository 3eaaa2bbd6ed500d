import { main } from '../../../src/cli';
import type { CliIo } from '../../../src/cli/io';
import { chatHarness, type ChatHarness } from '../chat/setup';
import { makeTempDir } from '../../support/tmp';

const WARNING =
  "Ignored the unknown field 'check_comand': edit_project does not take it. Its fields are: project_id, name, credit_weight, max_concurrent_agents, approvals_by_requester, task_rooms, overlap_policy, check_command, check_timeout_seconds, landing, landing_tries, backends.";

/** A misspelt field is named, never silently dropped; a call of nothing but unknown fields is refused. */
describe('unknown fields', () => {
  let h: ChatHarness;
  beforeEach(async () => {
    h = await chatHarness();
  });
  afterEach(() => h.cleanup());

  it('applies the known fields and names the unknown one in the warning', async () => {
    expect(await h.rt.exec('edit_project', { project_id: 'demo', max_concurrent_agents: 2, check_comand: 'npm test' })).toEqual({
      updated: 'demo',
      fields: ['max_concurrent_agents'],
      warning: WARNING,
    });
    expect(await h.rt.exec('list_projects')).toMatchObject({ projects: [{ id: 'demo', max_concurrent_agents: 2 }] });
  });

  it('refuses a call whose only fields are unknown, naming them', async () => {
    expect(await h.rt.exec('list_tasks', { stauts: 'READY', projct: 'demo' })).toEqual({
      error:
        "list_tasks does not take the fields 'stauts', 'projct', so nothing was done. Its fields are: project_id, status, limit, offset, cursor. See help list_tasks.",
    });
    expect(await h.rt.exec('get_status', { verbose: true })).toEqual({
      error: "get_status does not take the field 'verbose', so nothing was done. It takes no fields. See help get_status.",
    });
    expect(await h.rt.exec('get_status', {})).toMatchObject({ projects: 1 });
  });

  it('tells the model in the tool result', async () => {
    h.fake.enqueue(
      { toolUses: [{ id: 't1', name: 'edit_project', input: { project_id: 'demo', max_concurrent_agents: 3, check_comand: 'x' } }] },
      { text: 'Done, but check_comand is not a field.' },
    );
    await h.ask('set demo to 3 agents and its check command to x');
    const [result] = h.fake.toolResultsIn(h.fake.requests[1]);
    expect(JSON.parse(String(result.content))).toEqual({ updated: 'demo', fields: ['max_concurrent_agents'], warning: WARNING });
  });

  it('prints the warning from aq exec', async () => {
    const home = await makeTempDir('aq-cli-unknown-');
    try {
      const out: string[] = [];
      const io: CliIo = { stdout: (t) => out.push(t), stderr: () => undefined, async *readLines() {} };
      expect(await main(['exec', 'create_project', '{"name": "Demo", "colour": "blue"}'], io, { AQ_HOME: home.dir })).toBe(0);
      expect(JSON.parse(out[0])).toMatchObject({ created: 'demo', warning: expect.stringContaining("Ignored the unknown field 'colour'") });
    } finally {
      await home.cleanup();
    }
  });
});
