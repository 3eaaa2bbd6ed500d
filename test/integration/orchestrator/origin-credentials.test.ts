import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { GitManagerTaskGit } from '../../../src/orchestrator/task-git';
import { gitOut } from '../../support/git-fixtures';
import { startGitHttpServer, type GitHttpServer } from '../../support/git-http-server';
import { makeHarness, writeIn, type Harness } from './harness';

jest.setTimeout(120_000);

/**
 * A workspace whose origin URL still holds a token (cloned before clones kept credentials apart,
 * or linked): the token leaves its git settings before the agent runs, and the work still lands
 * through the real git http-backend behind HTTP Basic auth.
 */
describe("a token in an existing workspace's origin URL", () => {
  let h: Harness;
  let server: GitHttpServer;
  afterEach(async () => {
    await h.cleanup();
    await server.close();
  });

  it('is moved out of .git/config before the agent runs, and the work lands with it', async () => {
    h = await makeHarness();
    server = await startGitHttpServer(path.dirname(h.origin), 'bot', 's3cret-token');
    const withToken = `${server.url.replace('http://', 'http://bot:s3cret-token@')}/${path.basename(h.origin)}`;
    await gitOut(h.workspace, 'remote', 'set-url', 'origin', withToken);
    const seenByAgent: string[] = [];
    h.adapter.fallback = async (req) => {
      seenByAgent.push(await readFile(path.join(req.cwd, '.git', 'config'), 'utf8'));
      await writeIn(req, 'landed.txt', 'landed\n');
      return { summary: 'wrote landed.txt' };
    };
    // The runtime's own git, as the app wires it (its credentials folder in AQ_HOME).
    await h.start({ git: new GitManagerTaskGit(h.rt.git) });
    const id = await h.task('Land through the forge');
    await h.waitStatus(id, 'COMPLETED');

    expect(seenByAgent).toHaveLength(1);
    expect(seenByAgent[0]).not.toContain('s3cret-token');
    expect(seenByAgent[0]).toContain(`url = ${server.url}/${path.basename(h.origin)}`);
    expect(await gitOut(h.origin, 'show', 'main:landed.txt')).toBe('landed');
    const basic = `Basic ${Buffer.from('bot:s3cret-token').toString('base64')}`;
    expect(server.authorizations).toContain(basic);
  });
});
