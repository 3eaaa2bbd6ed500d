// @database-dependent: a refusal is remembered across processes in a system_state row.
import { readSlackFeatures } from '../../../src/db/slack-features';
import { RECHECK_AFTER_MS, SlackFeatures } from '../../../src/slack/ai-surfaces/features';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

/**
 * What the workspace refused is remembered in system_state: a new process (or a restart) on the
 * same database uses the classic path without asking Slack again, and asks again after a day.
 */
describe('Slack feature detection', () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = await makeTestRuntime();
  });
  afterEach(() => rt.cleanup());

  const refusal = () => Object.assign(new Error('An API error occurred: not_allowed'), { data: { ok: false, error: 'not_allowed' } });

  it('remembers a refusal across processes, logs it once per process, and tries again after a day', async () => {
    let now = Date.parse('2026-11-23T08:00:00Z');
    const logs: string[] = [];
    const first = new SlackFeatures(
      rt.db.state,
      (m) => logs.push(m),
      () => now,
    );
    let calls = 0;
    const call = async () => {
      calls += 1;
      throw refusal();
    };
    expect(await first.attempt('agent_sessions', 'agents.sessions.setStatus', call)).toEqual({ ok: false, slackError: 'not_allowed' });
    expect(await first.attempt('agent_sessions', 'agents.sessions.setStatus', call)).toEqual({ ok: false, slackError: 'not_allowed' });
    expect(logs).toHaveLength(1);
    expect(logs[0]).toContain('not_allowed to agents.sessions.setStatus');

    // Another process (or this one after a restart) reads the verdict instead of asking Slack.
    const second = new SlackFeatures(
      rt.db.state,
      (m) => logs.push(m),
      () => now,
    );
    expect(await second.usable('agent_sessions')).toBe(false);
    expect(await second.usable('streaming')).toBe(true);
    expect(await readSlackFeatures(rt.db.state)).toEqual({
      agent_sessions: {
        mode: 'fallback',
        method: 'agents.sessions.setStatus',
        slack_error: 'not_allowed',
        since: '2026-11-23T08:00:00.000Z',
      },
    });
    expect((await rt.exec('get_status')).slack_features).toMatchObject({
      agent_sessions: { mode: 'fallback', slack_error: 'not_allowed' },
    });

    now += RECHECK_AFTER_MS + 1;
    expect(await second.usable('agent_sessions')).toBe(true);
    expect(await second.attempt('agent_sessions', 'agents.sessions.setStatus', async () => 'ok')).toEqual({ ok: true, value: 'ok' });
    expect((await readSlackFeatures(rt.db.state)).agent_sessions).toMatchObject({ mode: 'native' });
    expect(calls).toBe(2);
  });

  it('passes on failures that say nothing about the workspace', async () => {
    const features = new SlackFeatures(rt.db.state, () => undefined);
    const broken = Object.assign(new Error('An API error occurred: channel_not_found'), {
      data: { ok: false, error: 'channel_not_found' },
    });
    await expect(
      features.attempt('streaming', 'chat.startStream', async () => {
        throw broken;
      }),
    ).rejects.toBe(broken);
    expect(await features.usable('streaming')).toBe(true);
    expect('slack_features' in (await rt.exec('get_status'))).toBe(false);
  });
});
