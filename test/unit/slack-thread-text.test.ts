import type { EventRecord } from '../../src/db/repositories/events';
import { conversationReply } from '../../src/slack/blocks/cards-conversation';
import { taskDetailBlocks } from '../../src/slack/blocks/tasks';
import { HOSTILE, showsLiterally } from '../support/hostile';
import { taskResult } from '../support/task-result';
import { HOSTILE_HOST, validateMessage } from '../support/slack-validator';
import { mentionedUsers, slackToPlain } from '../../src/slack/slack-text';
import { placeOfPermalink } from '../../src/slack/source-thread';
import { boundThread, THREAD_LIMITS, threadContextText } from '../../src/slack/thread-context';
import { threadReplyOf } from '../../src/slack/task-thread-replies';

describe('Slack text as people read it', () => {
  const names = new Map([['U1', 'Alice']]);

  it('names people, keeps link addresses, decodes entities once', () => {
    expect(slackToPlain('hi <@U1> and <@U2|bob>, see <https://x.example/a?b=1&amp;c=2|the log> or <https://y.example>', names)).toBe(
      'hi @Alice and @bob, see the log (https://x.example/a?b=1&c=2) or https://y.example',
    );
    expect(slackToPlain('in <#C1|general> <!here> <mailto:a@b.example|a@b.example> &amp;lt; &lt;b&gt;')).toBe(
      'in #general @here a@b.example &lt; <b>',
    );
    expect(mentionedUsers('<@U1> <@W2|x> <#C3>')).toEqual(['U1', 'W2']);
  });

  it('finds the thread a Slack permalink points at, and nothing in other links', () => {
    expect(placeOfPermalink('https://acme.slack.com/archives/C0123/p1700000000000100')).toEqual({
      channelId: 'C0123',
      threadTs: '1700000000.000100',
    });
    expect(placeOfPermalink('https://acme.slack.com/archives/C0123/p1700000005000100?thread_ts=1700000000.000100&cid=C0123')).toEqual({
      channelId: 'C0123',
      threadTs: '1700000000.000100',
    });
    expect(placeOfPermalink('https://evil.example/archives/C0123/p1700000000000100')).toBeNull();
    expect(placeOfPermalink('not a link')).toBeNull();
  });
});

describe('the thread given to the chat model', () => {
  const line = (i: number, text = `message ${i}`) => ({ ts: `${1_700_000_000 + i}.000000`, author: `P${i} (U${i})`, text });

  it('keeps the first message and the latest, within the count and the character budget', () => {
    const many = Array.from({ length: 100 }, (_, i) => line(i));
    const { kept, left } = boundThread(many);
    expect(kept[0].text).toBe('message 0');
    expect(kept.at(-1)!.text).toBe('message 99');
    expect(kept).toHaveLength(THREAD_LIMITS.messages);
    expect(left).toBe(100 - THREAD_LIMITS.messages);

    const long = Array.from({ length: 20 }, (_, i) => line(i, 'y'.repeat(5000)));
    const bounded = boundThread(long);
    expect(bounded.kept.every((l) => l.text.length <= THREAD_LIMITS.perMessage + 10)).toBe(true);
    expect(bounded.kept.reduce((n, l) => n + l.text.length, 0)).toBeLessThanOrEqual(THREAD_LIMITS.chars);
    expect(bounded.left).toBe(20 - bounded.kept.length);
  });

  it('says which task a task thread is, and nothing when there is nothing to say', () => {
    expect(threadContextText([])).toBeNull();
    const text = threadContextText([line(1)], 'swift-fox-042')!;
    expect(text).toContain('This is the thread of task `swift-fox-042`');
    expect(text).toContain('P1 (U1), 2023-11-14 22:13 UTC:\nmessage 1');
  });
});

describe('which channel messages may steer a task', () => {
  const base = { channel: 'C1', channel_type: 'channel', ts: '2.0', thread_ts: '1.0', user: 'U1', text: 'go' };

  it('only a person’s reply in a thread, not to the app', () => {
    expect(threadReplyOf(base, 'UBOT')).toEqual({ channel: 'C1', threadTs: '1.0', ts: '2.0', userId: 'U1', text: 'go' });
    expect(threadReplyOf({ ...base, subtype: 'thread_broadcast' }, 'UBOT')).not.toBeNull();
    for (const other of [
      { ...base, thread_ts: undefined },
      { ...base, thread_ts: '2.0' },
      { ...base, subtype: 'message_changed' },
      { ...base, bot_id: 'B1' },
      { ...base, user: 'UBOT' },
      { ...base, text: '<@UBOT> hi' },
      { ...base, text: '  ' },
      { ...base, channel_type: 'im' },
    ]) {
      expect(threadReplyOf(other, 'UBOT')).toBeNull();
    }
  });
});

describe('where a task was asked for, on its card and in its thread', () => {
  const task = (sourceUrl: string) => taskResult({ title: 'T', project_id: 'p', description: 'd', source_url: sourceUrl });

  it('links a Slack permalink, and shows any other source as literal text', () => {
    const slackLink = 'https://acme.slack.com/archives/C0123/p1700000000000100';
    expect(JSON.stringify(taskDetailBlocks(task(slackLink)).blocks)).toContain(`{"type":"link","url":"${slackLink}"}`);
    for (const source of [`https://${HOSTILE_HOST}/x`, HOSTILE]) {
      const card = taskDetailBlocks(task(source));
      expect(validateMessage(card as unknown as Record<string, unknown>)).toEqual([]);
      expect(showsLiterally(card.blocks, source)).toBe(true);
    }
  });

  it('the thread lines about messages to the agent quote people literally', () => {
    const event = (type: string, payload: Record<string, unknown>) =>
      ({ id: 1, type, projectId: 'p', taskId: 't-1', payload, createdAt: new Date() }) as unknown as EventRecord;
    const delivered = conversationReply(event('task_message_delivered', { title: HOSTILE, text: HOSTILE, author: HOSTILE, via: 'live' }))!;
    expect(validateMessage(delivered as unknown as Record<string, unknown>)).toEqual([]);
    expect(showsLiterally(delivered.blocks, `from ${HOSTILE}`)).toBe(true);
    expect(conversationReply(event('task_message_delivered', { via: 'follow_up', text: 'x' }))).toBeNull();
    const queued = conversationReply(event('task_follow_up_queued', { title: HOSTILE, text: 'x', resumes_session: true }))!;
    expect(validateMessage(queued as unknown as Record<string, unknown>)).toEqual([]);
    expect(showsLiterally(queued.blocks, 'the agent continues its session')).toBe(true);
  });
});
