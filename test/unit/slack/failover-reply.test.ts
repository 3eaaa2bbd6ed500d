import type { EventRecord } from '../../../src/db/repositories/events';
import { OPENS_THREAD, threadReply } from '../../../src/slack/blocks/cards-thread';
import { HOSTILE, showsLiterally } from '../../support/hostile';
import { validateMessage } from '../../support/slack-validator';

/** The thread line that says which agent took a task and why, with a name people chose. */
describe('the failover line in a task thread', () => {
  it('names the agent and the limited backend literally, and opens a thread when there is none', () => {
    const reason = `${HOSTILE} (acp:codex) took it: claude-code is at its usage limit until 2026-11-26T02:00:00.000Z.`;
    const event = {
      id: 1,
      type: 'task_failover',
      projectId: 'p',
      taskId: 't-1',
      payload: { title: HOSTILE, agent_name: HOSTILE, backend: 'acp:codex', limited_backend: 'claude-code', reason },
      createdAt: new Date(),
    } as unknown as EventRecord;
    const reply = threadReply(event, false)!;
    expect(validateMessage(reply as unknown as Record<string, unknown>)).toEqual([]);
    expect(showsLiterally(reply.blocks, reason)).toBe(true);
    expect(reply.text).toContain('Taken by another backend');
    expect(OPENS_THREAD.has('task_failover')).toBe(true);
  });
});
