import path from 'node:path';
import type { Database } from '../../../src/db/database';
import { storableText } from '../../../src/db/storable-text';
import { openTestDatabase } from '../../support/runtime';
import { makeTempDir } from '../../support/tmp';

// Text we did not write (agent summaries, error messages, model replies, git and command output)
// may hold a NUL, which cuts a statement short in SQLite, or a lone surrogate, which has no UTF-8.
const NUL = 'before\u0000after';
const LONE = 'high \ud800 low \udc00 end';
const HOSTILE = `${NUL} ${LONE} pair 😀`;
const STORED = 'before\ufffdafter high \ufffd low \ufffd end pair 😀';

describe('storable text', () => {
  let tmp: { dir: string; cleanup: () => Promise<void> };
  let db: Database;
  let closeDb: () => Promise<void>;
  beforeEach(async () => {
    tmp = await makeTempDir('aq-storable-');
    ({ db, cleanup: closeDb } = await openTestDatabase(tmp.dir));
    await db.projects.create({ id: 'p1', name: 'p1', workspace: path.join(tmp.dir, 'w') });
  });
  afterEach(async () => {
    await closeDb();
    await tmp.cleanup();
  });

  it('replaces NUL and lone surrogates with U+FFFD and keeps every other character', () => {
    expect(storableText(HOSTILE)).toBe(STORED);
    expect(storableText('tab\tnew\nline \u0001 é 😀')).toBe('tab\tnew\nline \u0001 é 😀');
  });

  it("stores an agent's summary and error message from a task result", async () => {
    const task = await db.tasks.create({ projectId: 'p1', title: `t ${HOSTILE}`, description: HOSTILE });
    await db.taskResults.add({
      taskId: task.id,
      agentId: null,
      result: 'failed',
      summary: HOSTILE,
      errorMessage: HOSTILE,
      filesChanged: [HOSTILE],
      tokensUsed: 1,
      costUsd: 0,
      sessionId: null,
    });
    const result = await db.taskResults.latest(task.id);
    expect(result?.summary).toBe(STORED);
    expect(result?.errorMessage).toBe(STORED);
    expect(result?.filesChanged).toEqual([HOSTILE]);
    const stored = await db.tasks.get(task.id);
    expect(stored?.title).toBe(`t ${STORED}`);
    expect(stored?.description).toBe(STORED);
  });

  it('stores an event whose type, origin and payload carry them', async () => {
    await db.events.append({ type: HOSTILE, projectId: 'p1', taskId: null, agentId: null, payload: { error: HOSTILE }, origin: HOSTILE });
    const [event] = await db.events.recent(1);
    expect(event.type).toBe(STORED);
    expect(event.origin).toBe(STORED);
    // JSON escapes them (\u0000, \ud800), so a payload comes back as it was written.
    expect(event.payload).toEqual({ error: HOSTILE });
  });

  it("stores a hook run's prompt, model reply and reason", async () => {
    const em = db.em();
    await em.getConnection().execute(
      `insert into hooks (id, project_id, name, "trigger", context_steps, prompt_template, created_at, updated_at)
       values ('h1', 'p1', 'h1', '{}', '[]', 'x', ?, ?)`,
      [Date.now(), Date.now()],
    );
    const hook = (await db.hookRuns.hook('h1'))!;
    const runId = await db.hookRuns.startRun(hook, HOSTILE, { output: HOSTILE });
    await db.hookRuns.finishRun(runId, {
      status: 'completed',
      contextResults: [HOSTILE],
      promptSent: HOSTILE,
      llmResponse: HOSTILE,
      skippedReason: HOSTILE,
    });
    const { runs } = await db.hookRuns.runsPage('h1', { limit: 5, offset: 0 });
    expect(runs.map((r) => [r.triggerReason, r.skippedReason])).toEqual([[STORED, STORED]]);
    const [row] = await em.getConnection().execute('select prompt_sent, llm_response, context_results from hook_runs');
    expect([row.prompt_sent, row.llm_response]).toEqual([STORED, STORED]);
    // A JSON column reads back as text from SQLite and already parsed from PostgreSQL.
    const contextResults = typeof row.context_results === 'string' ? JSON.parse(row.context_results) : row.context_results;
    expect(contextResults).toEqual([HOSTILE]);
  });

  it("stores a chat thread's summary and messages", async () => {
    await db.chatThreads.save('C1:1.2', { summary: HOSTILE, turns: [{ role: 'user', content: HOSTILE }] });
    const conversation = await db.chatThreads.load('C1:1.2');
    expect(conversation.summary).toBe(STORED);
    expect(conversation.turns).toEqual([{ role: 'user', content: HOSTILE }]);
  });

  it('looks up by a value holding them without an error (and finds nothing)', async () => {
    expect(await db.tasks.get('a\u0000b')).toBeNull();
    expect(await db.projects.get('\ud800')).toBeNull();
    const rows = await db
      .em()
      .getConnection()
      .execute('select id from projects where id in (?)', [['p1', 'x\u0000']]);
    expect(rows).toEqual([{ id: 'p1' }]);
  });
});
