import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { ClaudeCodeAdapter } from '../../../src/agents/claude-code';
import { GitManager } from '../../../src/git/git-manager';
import { GitManagerTaskGit } from '../../../src/orchestrator/task-git';
import { FakeAnthropic, type RecordedRequest, type ScriptedAnswer } from '../../support/fake-anthropic';
import { commitFile, gitOut } from '../../support/git-fixtures';
import { makeHarness, waitFor, type Harness } from '../../integration/orchestrator/harness';

jest.setTimeout(240_000);

const TASKS = 5;
const FILES = ['a.txt', 'b.txt'];
/** The project's check, a lint kept in the repository: no FIXME may land. */
const CHECK = `#!/bin/sh
if grep -n FIXME a.txt b.txt; then echo "check failed: a FIXME is left in the lines above"; exit 1; fi
echo "check passed"
`;
const SENT_BACK_MARKER = 'could not land yet';

const original = (file: string, line: number) => `${file[0]}-${String(line).padStart(2, '0')}: original`;
/** Task k edits line 2k+2 of every shared file: one unchanged line between two tasks' edits, inside each other's diff hunks. */
const lineOf = (k: number) => 2 * k + 2;

function messagesOf(request: RecordedRequest): Array<{ role: string; content: unknown }> {
  return request.body.messages ?? [];
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? content.map((b) => (b as { text?: string }).text ?? '').join('\n') : '';
}

/** How many assistant turns the conversation holds after the last user message containing `marker`. */
function turnsSince(request: RecordedRequest, marker: string): number {
  const messages = messagesOf(request);
  let start = -1;
  messages.forEach((m, i) => {
    if (m.role === 'user' && textOf(m.content).includes(marker)) start = i;
  });
  return messages.slice(start + 1).filter((m) => m.role === 'assistant').length;
}

/**
 * Issue #19's proof, with the real Claude Code CLI (through the Agent SDK) against the loopback
 * Messages API and a real bare origin: five tasks of one repository run at once, each editing
 * lines of the same two files that sit inside the others' diff hunks. The conflict radar warns
 * about each pair once; the merge train lands them one at a time in train order, each commit
 * once; the project's check fails for one task's first landing, which goes back to its agent with
 * the failing output, and its fix lands after the others.
 */
describe('the merge train with five real Claude Code agents (e2e)', () => {
  let h: Harness;
  let fake: FakeAnthropic;

  beforeEach(async () => {
    fake = await FakeAnthropic.start({ consumeOnlyWithTools: true, untooledText: 'Merge train' });
    h = await makeHarness({ agents: TASKS, workspaces: TASKS });
  });
  afterEach(async () => {
    await h.cleanup();
    await fake.close();
  });

  it('lands five overlapping tasks in train order, each commit once, each overlap warned once; a red check sends one back', async () => {
    for (const file of FILES) {
      const lines = Array.from({ length: 12 }, (_, i) => original(file, i + 1));
      await commitFile(h.workspace, file, `${lines.join('\n')}\n`, `add ${file}`);
    }
    await commitFile(h.workspace, 'check.sh', CHECK, 'add the check');
    await gitOut(h.workspace, 'push', '-q', 'origin', 'main');
    expect(await h.rt.exec('edit_project', { project_id: 'proj', check_command: 'sh check.sh' })).toMatchObject({ updated: 'proj' });

    const ids: string[] = [];
    const logs: string[] = [];
    const db = h.rt.db;
    /** Every pair of the five tasks is a recorded overlap on both files. */
    const everyPairOverlaps = async () => {
      const overlaps = await db.overlaps.list({ projectId: 'proj' });
      return overlaps.length === (TASKS * (TASKS - 1)) / 2 && overlaps.every((o) => o.files.join() === FILES.join());
    };
    const inTrainOrLanded = async (taskId: string) => (await db.mergeTrain.get(taskId)) !== null || h.eventsOf('landed', taskId).length > 0;

    const agent = async (request: RecordedRequest): Promise<ScriptedAnswer> => {
      const prompt = textOf(messagesOf(request)[0]?.content);
      const workspace = /- Workspace directory: (.+)/.exec(prompt)?.[1]?.trim();
      const taskId = /- Task id: (\S+)/.exec(prompt)?.[1];
      const k = taskId ? ids.indexOf(taskId) : -1;
      if (!workspace || !taskId || k < 0) return { text: 'Nothing to do.' };
      const at = (file: string) => path.join(workspace, file);
      const conversation = JSON.stringify(messagesOf(request));
      if (conversation.includes(SENT_BACK_MARKER)) {
        // The follow-up: the check's output names the FIXME; the agent takes it out.
        const turn = turnsSince(request, SENT_BACK_MARKER);
        if (turn === 0) return { toolUses: [{ name: 'Read', input: { file_path: at('a.txt') } }] };
        if (turn === 1) {
          const line = `${original('a.txt', lineOf(k)).replace('original', `edited by ${taskId}`)}`;
          return { toolUses: [{ name: 'Edit', input: { file_path: at('a.txt'), old_string: `${line} FIXME`, new_string: line } }] };
        }
        // The fix re-enters the train behind the last of the others.
        await waitFor(() => inTrainOrLanded(ids[TASKS - 1]), 120_000, 'the last task to enter the train');
        return { text: 'Took the FIXME out of a.txt.' };
      }
      const turn = turnsSince(request, '- Task id:');
      if (turn === 0) return { toolUses: FILES.map((f) => ({ name: 'Read', input: { file_path: at(f) } })) };
      if (turn === 1) {
        return {
          toolUses: FILES.map((f) => {
            const before = original(f, lineOf(k));
            const after = `${before.replace('original', `edited by ${taskId}`)}${k === 1 && f === 'a.txt' ? ' FIXME' : ''}`;
            return { name: 'Edit', input: { file_path: at(f), old_string: before, new_string: after } };
          }),
        };
      }
      // A look at the result: its turn tells the radar the files changed.
      if (turn === 2) return { toolUses: [{ name: 'Read', input: { file_path: at('b.txt') } }] };
      // All five work at once until every overlap is known; then they finish in order, each
      // after the one before entered the train, so the train's order is theirs.
      await waitFor(everyPairOverlaps, 90_000, 'every pair of tasks to overlap').catch(async (err: Error) => {
        const files = await Promise.all(ids.map(async (id) => `${id}: ${(await db.touchedFiles.list(id)).join()}`));
        const overlaps = (await db.overlaps.list({ projectId: 'proj' })).map((o) => `${o.taskA}+${o.taskB}: ${o.files.join()}`);
        throw new Error([err.message, 'Touched files:', ...files, 'Overlaps:', ...overlaps, ...logs].join('\n'));
      });
      if (k > 0) await waitFor(() => inTrainOrLanded(ids[k - 1]), 120_000, `task ${k - 1} to enter the train`);
      return { text: `Edited line ${lineOf(k)} of ${FILES.join(' and ')}.` };
    };
    fake.enqueue(...Array.from({ length: 100 }, () => agent));

    const home = path.join(h.rt.home, 'claude-home');
    await mkdir(path.join(home, 'config'), { recursive: true });
    const claude = new ClaudeCodeAdapter({
      apiKey: 'sk-ant-fake',
      baseUrl: fake.url,
      maxRetries: 0,
      env: { HOME: home, CLAUDE_CONFIG_DIR: path.join(home, 'config') },
      tempRoot: path.join(home, 'tmp'),
    });
    for (let k = 0; k < TASKS; k++) {
      ids.push(await h.task(`Edit line ${lineOf(k)}`));
    }
    await h.start({
      adapters: { claude },
      git: new GitManagerTaskGit(new GitManager()),
      intervalMs: 50,
      log: (m) => {
        logs.push(m);
      },
    });

    const story = async (err: Error) => {
      const tasks = await Promise.all(ids.map(async (id) => `${id} ${await h.status(id)}`));
      const trouble = h.events.filter((e) => ['task_failed', 'task_blocked', 'landing_sent_back', 'merge_failed'].includes(e.type));
      return new Error([err.message, ...tasks, JSON.stringify(trouble.map((e) => [e.type, e.taskId, e.payload]))].join('\n'));
    };
    for (const id of ids) {
      await h.waitStatus(id, 'COMPLETED', 180_000).catch(async (err) => {
        throw await story(err);
      });
    }

    // The five ran at once (the radar saw every pair live), each pair and file set warned about once.
    const detected = h.eventsOf('overlap_detected');
    const warnings = detected.map((e) => `${(e.payload.task_ids as string[]).join('+')}:${(e.payload.files as string[]).join()}`);
    const radar = h.events.filter((e) => e.type.startsWith('overlap_'));
    const repeated = warnings.filter((w, i) => warnings.indexOf(w) !== i);
    if (repeated.length > 0) {
      const story = radar.map(
        (e) => `${e.id} ${e.type} ${(e.payload.task_ids as string[]).join('+')} ${(e.payload.files as string[]).join()}`,
      );
      throw new Error(`Warned more than once: ${repeated.join('; ')}\n${story.join('\n')}\n${logs.join('\n')}`);
    }
    for (let i = 0; i < TASKS; i++) {
      for (let j = i + 1; j < TASKS; j++) {
        const pair = [ids[i], ids[j]].sort().join('+');
        expect(warnings).toContain(`${pair}:${FILES.join()}`);
      }
    }

    // The train: the four that passed in the order they entered it, then the one sent back.
    const expected = [ids[0], ids[2], ids[3], ids[4], ids[1]];
    expect(h.eventsOf('landed').map((e) => e.taskId)).toEqual(expected);
    expect(h.eventsOf('landing_started').map((e) => e.taskId)).toEqual([ids[0], ids[1], ...expected.slice(1)]);

    // One send-back, for the FIXME, and the agent's follow-up was the check's failing output.
    const sentBack = h.eventsOf('landing_sent_back');
    expect(sentBack.map((e) => e.taskId)).toEqual([ids[1]]);
    expect(sentBack[0].payload).toMatchObject({ tries: 1, landing_tries: 3 });
    const failing = `a.txt:${lineOf(1)}:a-${String(lineOf(1)).padStart(2, '0')}: edited by ${ids[1]} FIXME`;
    expect(String(sentBack[0].payload.reason)).toContain(failing);
    const followUp = fake.requests.find((r) => JSON.stringify(messagesOf(r)).includes(SENT_BACK_MARKER));
    const instruction = messagesOf(followUp!).find((m) => m.role === 'user' && textOf(m.content).includes(SENT_BACK_MARKER));
    expect(textOf(instruction!.content)).toContain('`sh check.sh` failed with exit code 1');
    expect(textOf(instruction!.content)).toContain(failing);
    expect(textOf(instruction!.content)).toContain('check failed: a FIXME is left in the lines above');

    // Origin's main: each task's commits once (the sent-back task's first commit and its fix), in train order.
    const trailers = (await gitOut(h.origin, 'log', 'main', '--reverse', '--format=%(trailers:key=Task-Id,valueonly)'))
      .split('\n')
      .map((id) => id.trim())
      .filter(Boolean);
    expect(trailers).toEqual([ids[0], ids[2], ids[3], ids[4], ids[1], ids[1]]);
    for (const file of FILES) {
      const text = await gitOut(h.origin, 'show', `main:${file}`);
      expect(text).not.toContain('FIXME');
      for (const [k, id] of ids.entries()) {
        expect(text).toContain(`${file[0]}-${String(lineOf(k)).padStart(2, '0')}: edited by ${id}`);
      }
    }
    expect(await db.mergeTrain.list({ projectId: 'proj' })).toEqual([]);
  });
});
