import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

/** Chat conversations, their ratings and pending confirmations as stored, on each database. */
describe('chat threads', () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = await makeTestRuntime();
  });
  afterEach(() => rt.cleanup());

  it('keeps a conversation as saved, the last save winning, and its ratings through saves', async () => {
    const chats = rt.db.chatThreads;
    expect(await chats.load('C1:1.1')).toEqual({ summary: null, turns: [] });
    // A rating can come before anything is saved (a reply in a thread the app never stored).
    await chats.addFeedback('C1:1.1', { user_id: 'U1', rating: 'bad', message_ts: '1.2', at: '2026-11-29T00:00:00Z' });
    const turns = [
      { role: 'user', content: 'café ☕ "quoted" \\ back' },
      { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
    ];
    await chats.save('C1:1.1', { summary: null, turns });
    expect(await chats.load('C1:1.1')).toEqual({ summary: null, turns });
    await chats.save('C1:1.1', { summary: 'Earlier: a demo.', turns: turns.slice(1) });
    expect(await chats.load('C1:1.1')).toEqual({ summary: 'Earlier: a demo.', turns: turns.slice(1) });
    // The same person rating the same reply again replaces their rating; others are kept.
    await chats.addFeedback('C1:1.1', { user_id: 'U2', rating: 'good', message_ts: '1.2', at: '2026-11-29T00:01:00Z' });
    await chats.addFeedback('C1:1.1', { user_id: 'U1', rating: 'good', message_ts: '1.2', at: '2026-11-29T00:02:00Z' });
    expect(await chats.feedback('C1:1.1')).toEqual([
      { user_id: 'U2', rating: 'good', message_ts: '1.2', at: '2026-11-29T00:01:00Z' },
      { user_id: 'U1', rating: 'good', message_ts: '1.2', at: '2026-11-29T00:02:00Z' },
    ]);
    expect(await chats.load('C1:1.1')).toEqual({ summary: 'Earlier: a demo.', turns: turns.slice(1) });
    expect(await chats.feedback('C2:1.1')).toEqual([]);
  });

  it('gives a pending confirmation to one taker only, and lets it be read before', async () => {
    const chats = rt.db.chatThreads;
    const pending = { tool: 'delete_project', input: { project_id: 'web' }, requestedBy: 'U1' };
    await chats.savePending('C1:1.1', pending);
    expect(await chats.peekPending('C1:1.1')).toEqual(pending);
    expect(await chats.peekPending('C1:9.9')).toBeNull();
    const taken = await Promise.all([chats.takePending('C1:1.1'), chats.takePending('C1:1.1'), chats.takePending('C1:1.1')]);
    expect(taken.filter((t) => t !== null)).toEqual([pending]);
    expect(await chats.takePending('C1:1.1')).toBeNull();
    expect(await chats.peekPending('C1:1.1')).toBeNull();
  });
});
