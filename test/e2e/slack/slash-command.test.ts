import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { StartedApp } from '../../../src/app';
import { startTestApp, type TestApp } from '../../support/slack-app';
import { FakeSlack } from '../../support/fake-slack';
import { slashCommand } from '../../support/slack-payloads';
import { makeTempDir } from '../../support/tmp';
import { visibleTexts } from '../../support/slack-validator';

const SECRET = 'test-signing-secret';

describe('/aq through the real Bolt app (HTTP mode) and a loopback Slack', () => {
  let app: TestApp;
  let slack: FakeSlack;
  let started: StartedApp;
  let appUrl: string;

  beforeEach(async () => {
    app = await startTestApp({ AQ_ADMINS: 'UADMIN' });
    ({ slack, started, url: appUrl } = app);
  });
  afterEach(() => app.stop());

  const send = (text: string, userId = 'U1', channelId = 'C1') =>
    FakeSlack.postToApp(appUrl, slashCommand({ text, userId, channelId, responseUrl: slack.responseUrl() }), { signingSecret: SECRET });

  it('acks at once and answers through response_url with the command result', async () => {
    const ack = await send('create_project name="Demo Project"');
    expect(ack.status).toBe(200);
    await slack.waitFor(() => slack.responses.length === 1, 'the response');
    expect(String(slack.responses[0].body.text)).toContain('Project created: Demo Project');
    expect(JSON.stringify(slack.responses[0].body.blocks)).toContain('demo-project');
    expect(await started.runtime.handler.execute('list_projects', {})).toMatchObject({
      projects: [expect.objectContaining({ id: 'demo-project' })],
    });
    expect(slack.callsTo('auth.test')).toHaveLength(1);
  });

  it('fills required fields from bare words, defaults to the channel project, and shows errors plainly', async () => {
    await started.runtime.handler.execute('create_project', { name: 'p' });
    await started.runtime.handler.execute('set_project_channel', { project_id: 'p', channel_id: 'CPROJ' });
    await send('create_task title="Fix login" description="The form crashes"', 'U1', 'CPROJ');
    await slack.waitFor(() => slack.responses.length === 1, 'the create_task response');
    expect(visibleTexts(slack.responses[0].body.blocks)).toContainEqual(expect.stringContaining(' · p · ready to start'));
    await send('get_task no-such-task');
    await slack.waitFor(() => slack.responses.length === 2, 'the get_task response');
    expect(slack.responses[1].body).toMatchObject({ response_type: 'ephemeral', text: ":warning: Task 'no-such-task' not found." });
  });

  it('refuses a 1 MB description with the limit, and stores nothing', async () => {
    await started.runtime.handler.execute('create_project', { name: 'p' });
    await send(`create_task project_id=p title=Big description=${'x'.repeat(1024 * 1024)}`);
    await slack.waitFor(() => slack.responses.length === 1, 'the response', 30_000);
    expect(slack.responses[0].body).toMatchObject({
      response_type: 'ephemeral',
      text: expect.stringContaining("Field 'description' is 1,048,576 characters long; the limit is 32,000."),
    });
    expect(await started.runtime.handler.execute('list_tasks', {})).toMatchObject({ tasks: [], total: 0 });
  });

  it('refuses an unknown key=value field by name, and changes nothing', async () => {
    await started.runtime.handler.execute('create_project', { name: 'p' });
    await send('edit_project p max_concurrent_agents=3 check_comand=npm');
    await slack.waitFor(() => slack.responses.length === 1, 'the response', 30_000);
    expect(slack.responses[0].body).toMatchObject({
      response_type: 'ephemeral',
      text: expect.stringContaining("I did not understand 'check_comand=…': edit_project takes project_id, name,"),
    });
    expect(await started.runtime.handler.execute('list_projects', {})).toMatchObject({ projects: [{ max_concurrent_agents: 2 }] });
  });

  it('refuses admin commands to non-admins, lists help, and explains unknown words', async () => {
    await send('run_command command=ls working_dir=.', 'USTRANGER');
    await send('help');
    await send('frobnicate');
    await slack.waitFor(() => slack.responses.length === 3, 'three responses');
    const texts = slack.responses.map((r) => String(r.body.text));
    expect(texts.find((t) => t.includes('Only workspace admins'))).toBeDefined();
    expect(slack.responses.find((r) => JSON.stringify(r.body.blocks ?? []).includes('create_project'))).toBeDefined();
    expect(
      texts.find((t) => t.includes("I don't know the command `frobnicate`, and plain-language requests need ANTHROPIC_API_KEY")),
    ).toBeDefined();
  });

  it('rejects a wrongly signed request', async () => {
    const response = await FakeSlack.postToApp(appUrl, slashCommand({ text: 'get_status', responseUrl: slack.responseUrl() }), {
      signingSecret: SECRET,
      badSignature: true,
    });
    expect(response.status).toBe(401);
    expect(slack.responses).toHaveLength(0);
  });
});

describe('npm start without Slack tokens', () => {
  it('says what to set and exits 1', async () => {
    const app = path.join(__dirname, '..', '..', '..', 'dist', 'src', 'app.js');
    const home = await makeTempDir('aq-start-');
    try {
      await promisify(execFile)(process.execPath, [app], { env: { PATH: process.env.PATH, HOME: home.dir, AQ_HOME: home.dir } });
      throw new Error('app.js should have exited with code 1');
    } catch (err) {
      const failure = err as { code?: number; stderr?: string };
      expect(failure.code).toBe(1);
      expect(failure.stderr).toContain('SLACK_BOT_TOKEN and SLACK_APP_TOKEN (or SLACK_SIGNING_SECRET) are not set');
      expect(failure.stderr).toContain('manifest.yml');
    } finally {
      await home.cleanup();
    }
  });
});
