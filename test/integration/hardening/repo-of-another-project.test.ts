import { ALL_COMMANDS } from '../../../src/commands';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { fieldsOf, plausible } from './catalog-inputs';
import { expectCleanError } from './clean-error';

/** Every command naming both a project and a repo, from the catalog: a new one is covered too. */
const PROJECT_AND_REPO = ALL_COMMANDS.filter((c) => {
  const fields = fieldsOf(c);
  return 'project_id' in fields && 'repo_id' in fields;
});

describe('a repo of another project', () => {
  let rt: TestRuntime;
  beforeAll(async () => {
    rt = await makeTestRuntime();
    await rt.exec('create_project', { name: 'alpha' });
    await rt.exec('create_project', { name: 'beta' });
    expect(await rt.exec('add_repo', { project_id: 'beta', source: 'init', name: 'svc' })).toMatchObject({ created: 'svc' });
  });
  afterAll(() => rt.cleanup());

  it('covers every git command that takes a repo_id', () => {
    const names = PROJECT_AND_REPO.map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(['git_log', 'git_diff', 'git_commit', 'git_push', 'create_branch', 'merge_branch']));
  });

  it.each(PROJECT_AND_REPO.map((c) => [c.name, c] as const))('%s refuses it with a sentence', async (name, command) => {
    // A named backend is checked on its own first (agent-backends.test.ts); left out so the repo is what is wrong.
    const fields = Object.entries(fieldsOf(command)).filter(([field]) => field !== 'backend');
    const args = Object.fromEntries(fields.map(([field, schema]) => [field, plausible(schema, 'x')]));
    const text = expectCleanError(await rt.exec(name, { ...args, project_id: 'alpha', repo_id: 'svc' }));
    expect(text).toContain("Repo 'svc' belongs to project 'beta', not 'alpha'.");
  });

  it('git commands still work on a repo of the project they name', async () => {
    expect(await rt.exec('git_log', { project_id: 'beta', repo_id: 'svc' })).toMatchObject({ project_id: 'beta', repo_id: 'svc' });
    expect(await rt.exec('create_branch', { project_id: 'beta', repo_id: 'svc', branch_name: 'feature' })).toMatchObject({
      status: 'created',
    });
  });
});
