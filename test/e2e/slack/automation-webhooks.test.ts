// @database-dependent: a retried delivery is refused by the unique (automation, dedup key) index, which must hold on both databases.
import { createHmac } from 'node:crypto';
import { startTestApp, type TestApp } from '../../support/slack-app';

/** Inbound webhooks through the real Bolt HTTP receiver. */
describe('automation webhooks', () => {
  let app: TestApp;
  let secret: string;
  beforeAll(async () => {
    app = await startTestApp();
    const exec = (name: string, args: Record<string, unknown>) => app.started.runtime.handler.executeAny(name, args, { source: 'cli' });
    await exec('create_project', { name: 'alpha' });
    const created = await exec('create_automation', {
      name: 'CI Red',
      kind: 'webhook',
      project_id: 'alpha',
      title: 'Fix the failing check {{event.check_run.name}}',
      description: 'Check run {{event.check_run.html_url}} failed on {{event.check_run.head_sha}}.',
      idempotency_key: 'check_run.id',
      match: { action: 'completed', 'check_run.conclusion': 'failure' },
      max_body_bytes: 2048,
    });
    secret = String(created.secret);
  }, 120_000);
  afterAll(() => app.stop());

  const checkRun = (id: number, conclusion = 'failure') =>
    JSON.stringify({
      action: 'completed',
      check_run: { id, name: 'unit <tests>', conclusion, head_sha: 'abc123', html_url: 'https://example.test/runs/1' },
    });
  const sign = (body: string, timestamp = Math.floor(Date.now() / 1000), key = secret) => ({
    'x-aq-timestamp': String(timestamp),
    'x-aq-signature': `sha256=${createHmac('sha256', key).update(`${timestamp}.${body}`).digest('hex')}`,
  });
  const post = async (body: string, headers: Record<string, string>, id = 'ci-red') => {
    const response = await fetch(`${app.url}/automations/${id}/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const tasks = async () =>
    ((await app.started.runtime.handler.executeAny('list_tasks', { project_id: 'alpha' }, { source: 'cli' })).tasks as Array<{
      id: string;
      title: string;
    }>) ?? [];

  it('creates one task from a signed delivery, and none from its replay', async () => {
    const body = checkRun(101);
    const first = await post(body, sign(body));
    expect(first).toEqual({ status: 201, body: { task_id: expect.any(String) } });
    expect(await tasks()).toEqual([expect.objectContaining({ id: first.body.task_id, title: 'Fix the failing check unit <tests>' })]);

    const retried = await post(body, sign(body));
    expect(retried).toEqual({ status: 200, body: { duplicate: true, task_id: first.body.task_id } });
    expect(await tasks()).toHaveLength(1);
  });

  it('answers a bad signature, an old timestamp, a GitHub signature and other mistakes with a clear 4xx and no task', async () => {
    const body = checkRun(202);
    expect(await post(body, sign(body, undefined, 'another-secret-of-some-length'))).toEqual({
      status: 401,
      body: { error: expect.stringContaining('The signature does not match') },
    });
    expect(await post(body, sign(body, Math.floor(Date.now() / 1000) - 3600))).toEqual({
      status: 401,
      body: { error: expect.stringContaining('more than 5 minutes from now') },
    });
    expect(await post(body, {})).toEqual({ status: 401, body: { error: expect.stringContaining('not signed') } });
    expect(await post(body, { 'x-hub-signature-256': 'sha256=00' })).toMatchObject({ status: 401 });
    expect(await post(body, sign(body), 'nope')).toMatchObject({ status: 404 });
    const big = JSON.stringify({ pad: 'x'.repeat(4096) });
    expect(await post(big, sign(big))).toMatchObject({ status: 413 });
    expect(await post('not json', sign('not json'))).toMatchObject({ status: 400, body: { error: expect.stringContaining('not JSON') } });
    const green = checkRun(203, 'success');
    expect(await post(green, sign(green))).toEqual({ status: 202, body: { ignored: 'check_run.conclusion is not failure.' } });
    expect(await tasks()).toHaveLength(1);

    // GitHub's own signature form works too.
    const github = checkRun(204);
    const hub = `sha256=${createHmac('sha256', secret).update(github).digest('hex')}`;
    expect(await post(github, { 'x-hub-signature-256': hub })).toMatchObject({ status: 201 });
    expect(await tasks()).toHaveLength(2);
  });
});
