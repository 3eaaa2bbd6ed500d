import { startTestApp, type TestApp } from '../../support/slack-app';
import { FakeSlack, type ResponsePost } from '../../support/fake-slack';
import { blockActions, slashCommand } from '../../support/slack-payloads';
import { visibleTexts } from '../../support/slack-validator';

const SECRET = 'test-signing-secret';

describe("list_tasks in Slack reaches every task, past the command's 200 a call", () => {
  let app: TestApp;
  beforeEach(async () => {
    app = await startTestApp();
  });
  afterEach(() => app.stop());

  it('pages with Next from the first task to the last of 230', async () => {
    const { slack, started } = app;
    const exec = (name: string, args: Record<string, unknown>) => started.runtime.handler.executeAny(name, args, { source: 'system' });
    await exec('create_project', { name: 'big' });
    for (let i = 1; i <= 230; i++)
      await exec('create_task', { project_id: 'big', title: `Task number ${i}`, description: 'd', priority: i });

    await FakeSlack.postToApp(app.url, slashCommand({ text: 'list_tasks project_id=big', responseUrl: slack.responseUrl('first') }), {
      signingSecret: SECRET,
    });
    let page: ResponsePost = await slack.waitForResponse((r) => r.id === 'first');
    const seen = new Set<string>();
    for (let clicks = 0; ; clicks++) {
      for (const match of visibleTexts(page.body)
        .join('\n')
        .matchAll(/Task number (\d+)/g))
        seen.add(match[1]);
      const next = (page.body.blocks as Array<{ type: string; elements?: Array<{ action_id: string; value: string }> }>)
        .flatMap((b) => (b.type === 'actions' ? (b.elements ?? []) : []))
        .find((e) => e.action_id === 'aq_tasks_page_next');
      if (!next) break;
      expect(clicks).toBeLessThan(20);
      const id = `page${clicks}`;
      const payload = blockActions({ actionId: 'aq_tasks_page_next', value: next.value, responseUrl: slack.responseUrl(id) });
      await FakeSlack.postToApp(app.url, `payload=${encodeURIComponent(JSON.stringify(payload))}`, { signingSecret: SECRET });
      page = await slack.waitForResponse((r) => r.id === id && Array.isArray(r.body.blocks));
    }
    expect(seen.size).toBe(230);
    expect(visibleTexts(page.body).join('\n')).toContain('Showing 221–230 of 230');
  });
});
