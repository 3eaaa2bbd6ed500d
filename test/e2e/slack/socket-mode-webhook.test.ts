import { createHmac } from 'node:crypto';
import { LogLevel } from '@slack/bolt';
import { startApp, type StartedApp } from '../../../src/app';
import { loadConfig } from '../../../src/config';
import { FakeSlack } from '../../support/fake-slack';
import { makeTempDir } from '../../support/tmp';
import { freePort } from '../../support/free-port';

describe('inbound webhooks when the app runs in Socket Mode', () => {
  it('serves the webhook route on AQ_WEBHOOK_PORT and creates a task from a signed delivery', async () => {
    const slack = await FakeSlack.start();
    slack.enableSocketMode();
    const tmp = await makeTempDir('aq-socket-hook-');
    const port = await freePort();
    let started: StartedApp | null = null;
    try {
      started = await startApp(
        loadConfig({
          AQ_HOME: tmp.dir,
          SLACK_BOT_TOKEN: 'xoxb-test',
          SLACK_APP_TOKEN: 'xapp-test',
          SLACK_API_URL: slack.apiUrl,
          AQ_WEBHOOK_PORT: String(port),
        }),
        { logLevel: LogLevel.ERROR, clientOptions: { retryConfig: { retries: 0 } }, daemon: false },
      );
      await slack.waitForSocket();
      const exec = (name: string, args: Record<string, unknown>) => started!.runtime.handler.executeAny(name, args, { source: 'cli' });
      await exec('create_project', { name: 'alpha' });
      const created = await exec('create_automation', {
        name: 'Alerts',
        kind: 'webhook',
        project_id: 'alpha',
        title: 'Alert {{event.name}}',
      });
      const body = JSON.stringify({ name: 'disk full' });
      const timestamp = Math.floor(Date.now() / 1000);
      const post = (signature: string) =>
        fetch(`http://127.0.0.1:${port}/automations/alerts/webhook`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-aq-timestamp': String(timestamp), 'x-aq-signature': signature },
          body,
        });
      const good = `sha256=${createHmac('sha256', String(created.secret)).update(`${timestamp}.${body}`).digest('hex')}`;

      const refused = await post(`sha256=${'0'.repeat(64)}`);
      expect(refused.status).toBe(401);
      const accepted = await post(good);
      expect(accepted.status).toBe(201);
      const { task_id } = (await accepted.json()) as { task_id: string };
      expect(await exec('list_tasks', { project_id: 'alpha' })).toMatchObject({
        total: 1,
        tasks: [{ id: task_id, title: 'Alert disk full' }],
      });
    } finally {
      await started?.stop();
      await slack.close();
      await tmp.cleanup();
    }
  });
});
