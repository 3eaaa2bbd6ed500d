import path from 'node:path';
import { AcpAdapter } from '../../../src/agents/acp';
import { GitManager } from '../../../src/git/git-manager';
import { GitManagerTaskGit } from '../../../src/orchestrator/task-git';
import { scriptedProfile } from '../../support/acp/scripted-profile';
import { FakeSlack as Fake, type FakeSlack } from '../../support/fake-slack';
import { cloneWorkspace, createOriginRepo } from '../../support/git-fixtures';
import { blockActions, interactionBody } from '../../support/slack-payloads';
import { startTestApp, type TestApp } from '../../support/slack-app';
import { waitFor } from '../../integration/orchestrator/harness';

jest.setTimeout(120_000);

/**
 * An ACP agent's session/request_permission goes to the task's thread as the same card Claude
 * Code's requests get (real Bolt app, fake Slack), and the click goes back to the agent.
 */
describe('ACP permission requests in the task thread (scripted ACP agent, fake Slack)', () => {
  let app: TestApp;
  let slack: FakeSlack;
  afterEach(async () => {
    await app?.stop();
  });

  it('posts the request; Allow reaches the agent, which goes on and completes', async () => {
    app = await startTestApp({ AQ_AGENTS: '0', AQ_ASK_PEOPLE: 'true' }, { daemon: false });
    slack = app.slack;
    const rt = app.started.runtime;
    const origin = await createOriginRepo(app.home);
    const workspace = await cloneWorkspace(origin, path.join(app.home, 'ws0'));
    await rt.db.projects.create({ id: 'proj', name: 'proj', workspace: path.join(app.home, 'project-dir'), maxConcurrentAgents: 1 });
    await rt.db.workspaces.create({ id: 'ws0', projectId: 'proj', name: 'ws0', path: workspace, sourceType: 'clone', repoId: null });
    await rt.db.agents.create({ id: 'acp-1', name: 'ACP 1', type: 'acp', backend: 'acp', profile: 'scripted' });
    await rt.handler.execute('set_project_channel', { project_id: 'proj', channel_id: 'CP' }, { source: 'system' });
    const acp = new AcpAdapter({
      profiles: [scriptedProfile(path.join(app.home, 'acp-state'))],
      tempRoot: path.join(app.home, 'agent-tmp'),
    });
    await rt.startDaemon({
      adapters: { acp },
      git: new GitManagerTaskGit(new GitManager()),
      intervalMs: 500,
      progressIntervalMs: 50,
      log: () => undefined,
    });

    const task = await rt.db.tasks.create({ projectId: 'proj', title: 'Deploy it', description: 'acp:ask make deploy' });
    rt.daemon()?.kick();
    const ask = await slack.waitForCall(
      'chat.postMessage',
      (c) => !!c.args.thread_ts && String(c.args.text).startsWith('🔐 Permission needed'),
      60_000,
    );
    expect(JSON.stringify(ask.args.blocks)).toContain('make deploy');
    expect((await rt.db.tasks.get(task.id))?.status).toBe('WAITING_INPUT');
    const [request] = await rt.db.agentRequests.list({ taskId: task.id });
    await Fake.postToApp(
      app.url,
      interactionBody(
        blockActions({
          actionId: 'aq_request_allow',
          value: String(request.id),
          channelId: String(ask.args.channel),
          messageTs: '1700000000.000200',
          blocks: ask.args.blocks as never,
          responseUrl: slack.responseUrl('allow'),
        }),
      ),
      { signingSecret: app.signingSecret },
    );
    await waitFor(async () => (await rt.db.tasks.get(task.id))?.status === 'COMPLETED', 60_000, 'the task to complete');
    expect((await rt.db.taskResults.latest(task.id))?.summary).toContain('permission for make deploy: yes');
  });
});
