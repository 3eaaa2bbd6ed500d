// @database-dependent: new columns (agents.backend/profile, projects.backends, tasks.backend, task_results.*_reported) are stored and read back.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Database } from '../../../src/db/database';
import { databaseBefore } from '../../support/older-database';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { makeTempDir } from '../../support/tmp';

/** Agent backends and profiles through the catalog: create_agent, list_agents, list_agent_profiles, projects' and tasks' backends. */
describe('agent backends and profiles', () => {
  let rt: TestRuntime;
  let dir: Awaited<ReturnType<typeof makeTempDir>>;
  beforeEach(async () => {
    dir = await makeTempDir('aq-profiles-');
    const file = path.join(dir.dir, 'profiles.json');
    await writeFile(
      file,
      JSON.stringify({
        profiles: [
          {
            name: 'codex',
            command: 'codex-acp',
            args: ['-c', 'model="o4"'],
            env: { OPENAI_API_KEY: 'sk-secret-value' },
            writable: ['~/.codex'],
          },
        ],
      }),
    );
    rt = await makeTestRuntime({ AQ_AGENT_PROFILES: file, AQ_ADMINS: 'UADMIN' });
    await rt.exec('create_project', { name: 'alpha' });
  });
  afterEach(async () => {
    await rt.cleanup();
    await dir.cleanup();
  });

  it('creates agents on either backend, lists them with it, and refuses what cannot run', async () => {
    expect(await rt.exec('create_agent', { name: 'Claude 1' })).toEqual({ created: 'claude-1', name: 'Claude 1' });
    expect(await rt.exec('create_agent', { name: 'Codex 1', backend: 'acp', profile: 'codex' })).toEqual({
      created: 'codex-1',
      name: 'Codex 1',
      backend: 'acp',
      profile: 'codex',
    });
    expect(await rt.exec('create_agent', { name: 'Nameless', backend: 'acp' })).toEqual({
      error: 'An acp agent needs a profile: give profile=<name> (list_agent_profiles shows the configured ones).',
    });
    expect(await rt.exec('create_agent', { name: 'Ghost', backend: 'acp', profile: 'gemini' })).toEqual({
      error: "No agent profile is named 'gemini': list_agent_profiles shows the configured ones.",
    });
    expect(await rt.exec('create_agent', { name: 'Mixed', profile: 'codex' })).toEqual({
      error: 'Only acp agents take a profile: give backend=acp with it, or leave profile out.',
    });
    expect((await rt.exec('list_agents')).agents).toEqual([
      { id: 'claude-1', name: 'Claude 1', type: 'claude', state: 'IDLE', current_task: null, backend: 'claude-code' },
      { id: 'codex-1', name: 'Codex 1', type: 'acp', state: 'IDLE', current_task: null, backend: 'acp', profile: 'codex' },
    ]);
  });

  it('lists profiles to admins only, with the names of their variables and never the values', async () => {
    const listed = await rt.handler.execute('list_agent_profiles', {}, { source: 'slack', userId: 'UADMIN', channelId: 'C1' });
    expect(listed).toEqual({
      profiles: [
        { name: 'codex', command: 'codex-acp', args: ['-c', 'model="o4"'], env: ['OPENAI_API_KEY'], sandbox: true, writable: ['~/.codex'] },
      ],
    });
    expect(JSON.stringify(listed)).not.toContain('sk-secret-value');
    const refused = await rt.handler.execute('list_agent_profiles', {}, { source: 'slack', userId: 'UOTHER', channelId: 'C1' });
    expect(refused).toEqual({ error: expect.stringContaining('admin') });
  });

  it("keeps a project's backends in order, and a task's backend within them", async () => {
    expect(await rt.exec('edit_project', { project_id: 'alpha', backends: ['acp:codex', 'claude-code'] })).toEqual({
      updated: 'alpha',
      fields: ['backends'],
    });
    expect((await rt.exec('list_projects')).projects).toMatchObject([{ id: 'alpha', backends: ['acp:codex', 'claude-code'] }]);
    expect(await rt.exec('edit_project', { project_id: 'alpha', backends: ['cursor'] })).toEqual({
      error: "'cursor' is not a backend: use claude-code, acp (any ACP profile) or acp:<profile>.",
    });
    const made = await rt.exec('create_task', { project_id: 'alpha', title: 'T', description: 'd', backend: 'acp:codex' });
    expect(made).toMatchObject({ backend: 'acp:codex' });
    expect(await rt.exec('get_task', { task_id: made.created })).toMatchObject({ backend: 'acp:codex' });
    await rt.exec('edit_project', { project_id: 'alpha', backends: ['claude-code'] });
    expect(await rt.exec('create_task', { project_id: 'alpha', title: 'T2', description: 'd', backend: 'acp:codex' })).toEqual({
      error: "Project 'alpha' runs its tasks on claude-code: pick one of those, or change the project's backends with edit_project.",
    });
    await rt.exec('edit_project', { project_id: 'alpha', backends: [] });
    expect((await rt.exec('list_projects')).projects).toEqual([expect.not.objectContaining({ backends: expect.anything() })]);
  });

  it('create_project takes backends, checked like edit_project, and get_project and list_projects show them', async () => {
    expect(await rt.exec('create_project', { name: 'beta', backends: ['acp:codex', 'claude-code', 'acp:codex'] })).toMatchObject({
      created: 'beta',
      backends: ['acp:codex', 'claude-code'],
    });
    expect(await rt.exec('get_project', { project_id: 'beta' })).toMatchObject({ backends: ['acp:codex', 'claude-code'] });
    expect((await rt.exec('list_projects')).projects).toEqual([
      expect.not.objectContaining({ backends: expect.anything() }),
      expect.objectContaining({ id: 'beta', backends: ['acp:codex', 'claude-code'] }),
    ]);
    expect(await rt.exec('create_project', { name: 'gamma', backends: ['acp:gemini'] })).toEqual({
      error: "No agent profile is named 'gemini': list_agent_profiles shows the configured ones.",
    });
    expect(await rt.exec('get_project', { project_id: 'gamma' })).toEqual({ error: "Project 'gamma' not found." });
    expect(await rt.exec('create_project', { name: 'delta', backends: [] })).not.toHaveProperty('backends');
  });
});

describe('the agent_backends migration', () => {
  it('makes existing agents Claude Code ones and existing results report their usage', async () => {
    const tmp = await makeTempDir('aq-migrate-');
    try {
      const file = path.join(tmp.dir, 'old.db');
      const now = Date.now();
      await databaseBefore(file, 'Migration20261125200600_agent_backends', async (sql) => {
        await sql(`insert into projects (id, name, workspace, created_at, updated_at) values ('p1', 'P1', '/w/p1', ${now}, ${now})`);
        await sql(`insert into agents (id, name, created_at) values ('a1', 'A1', ${now})`);
        await sql(
          `insert into tasks (id, project_id, title, description, created_at, updated_at) values ('t1', 'p1', 'Old', 'd', ${now}, ${now})`,
        );
        await sql(
          `insert into task_results (task_id, result, tokens_used, cost_usd, created_at) values ('t1', 'COMPLETED', 120, 0.5, ${now})`,
        );
      });
      const db = await Database.open(file);
      try {
        expect(await db.agents.get('a1')).toMatchObject({ backend: 'claude-code', profile: null });
        expect(await db.projects.get('p1')).toMatchObject({ backends: null });
        expect(await db.tasks.get('t1')).toMatchObject({ backend: null });
        expect(await db.taskResults.latest('t1')).toMatchObject({ tokensUsed: 120, costUsd: 0.5 });
      } finally {
        await db.close();
      }
    } finally {
      await tmp.cleanup();
    }
  });
});
