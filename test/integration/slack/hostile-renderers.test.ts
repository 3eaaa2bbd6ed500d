import { ALL_COMMANDS } from '../../../src/commands';
import { cardFor } from '../../../src/slack/blocks/cards';
import { renderResult } from '../../../src/slack/blocks/render';
import { helpFor } from '../../../src/slack/blocks/help';
import { chatReplyBlocks } from '../../../src/slack/chat-replies';
import { markdownToBlocks, markdownToMrkdwn } from '../../../src/slack/mrkdwn';
import { asRead, HOSTILE, HOSTILE_BLOCK, HOSTILE_FORMATTING, showsLiterally, showsSomewhere } from '../../support/hostile';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { mrkdwnProblems, validateMessage } from '../../support/slack-validator';

/** What every rendered message must be: valid for Slack, no markup we did not write. */
function expectSafe(label: string, rendered: { text: string; blocks: unknown[] }): void {
  expect({ label, violations: validateMessage(rendered as unknown as Record<string, unknown>) }).toEqual({ label, violations: [] });
}

/** A result of any shape, with hostile text in every kind of value a renderer meets. */
const HOSTILE_RESULT = {
  id: 'swift-fox-042',
  title: HOSTILE,
  name: HOSTILE,
  message: HOSTILE,
  summary: HOSTILE_BLOCK,
  log: `${HOSTILE_BLOCK}\n`.repeat(400),
  diff: `+ ${HOSTILE}\n- ${HOSTILE_FORMATTING}`,
  count: 3,
  ok: true,
  nothing: null,
  nested: { note: HOSTILE, list: [HOSTILE] },
  items: [
    { id: 'a', title: HOSTILE, status: 'FAILED', error: HOSTILE },
    { id: 'b', name: HOSTILE_FORMATTING, state: 'IDLE' },
  ],
};

const TASK = {
  id: 'swift-fox-042',
  project_id: 'web',
  title: HOSTILE,
  description: HOSTILE_BLOCK,
  status: 'FAILED',
  priority: 100,
  assigned_agent: HOSTILE,
  retry_count: 1,
  max_retries: 3,
  requires_approval: false,
  pr_url: `https://evil.example/x|<!channel>`,
};

describe('hostile text through every renderer', () => {
  it('every command, with a result of every shape, renders valid blocks that show the text literally', () => {
    for (const command of ALL_COMMANDS) {
      const args = { project_id: HOSTILE, status: HOSTILE };
      const special: Record<string, Record<string, unknown>> = {
        get_task: TASK,
        list_projects: {
          projects: [{ id: 'web', name: HOSTILE, status: 'ACTIVE', credit_weight: 1, max_concurrent_agents: 2 }],
          total: 1,
          next_offset: null,
        },
        list_tasks: { tasks: Array.from({ length: 45 }, (_, i) => ({ ...TASK, id: `t-${i}` })), total: 45 },
        get_status: {
          projects: 1,
          agents: [{ id: 'a', name: HOSTILE, state: 'BUSY', working_on: { task_id: 't', title: HOSTILE, project_id: HOSTILE } }],
          tasks: {
            total: 2,
            by_status: { READY: 1, IN_PROGRESS: 1 },
            in_progress: [{ id: 't', title: HOSTILE, project_id: 'p', assigned_agent: HOSTILE }],
            ready_to_work: [{ id: 'r', title: HOSTILE, project_id: HOSTILE }],
          },
          orchestrator_paused: true,
        },
      };
      const rendered = renderResult(command.name, args, special[command.name] ?? HOSTILE_RESULT);
      expectSafe(command.name, rendered);
      // Wherever the text shows, it shows literally; a designed card shows only the fields of its own
      // result shape, so a generic result may leave it out, but every other renderer must show it.
      const shown = showsSomewhere(rendered.blocks, HOSTILE);
      const literal = showsLiterally(rendered.blocks, HOSTILE);
      expect({ command: command.name, formatted: shown && !literal }).toEqual({ command: command.name, formatted: false });
      if (!cardFor(command.name) || special[command.name])
        expect({ command: command.name, literal }).toEqual({ command: command.name, literal: true });
      expect(rendered.text).not.toContain('<!channel>');

      const error = renderResult(command.name, {}, { error: `Task '${HOSTILE}' not found.` });
      expectSafe(`${command.name} error`, error);
      expect(showsLiterally(error.blocks, `Task '${HOSTILE}' not found.`)).toBe(true);
    }
  });

  it('keeps every character of long output: in the message, or in the attached file', () => {
    const rendered = renderResult('read_file', {}, { path: 'logs/build.log', content: HOSTILE_RESULT.log });
    expect(rendered.files).toEqual([expect.objectContaining({ content: HOSTILE_RESULT.log })]);
    expect(showsLiterally(rendered.blocks, HOSTILE_BLOCK.split('\n')[0])).toBe(true);
    const list = renderResult(
      'list_projects',
      {},
      { projects: Array.from({ length: 2000 }, (_, i) => ({ id: `p${i}`, name: `${HOSTILE} ${i}` })) },
    );
    expectSafe('2000 projects', list);
    expect(list.files?.[0].content).toContain(`${asRead(HOSTILE)} 1999`);
  });

  it('a task card keeps a formatting-heavy title intact and refuses a disguised pull request link', () => {
    const card = renderResult('get_task', {}, { ...TASK, title: HOSTILE_FORMATTING });
    expectSafe('card', card);
    expect(showsLiterally(card.blocks, HOSTILE_FORMATTING)).toBe(true);
    expect(showsLiterally(card.blocks, HOSTILE_BLOCK)).toBe(true);
    expect(JSON.stringify(card.blocks)).not.toContain('"type":"link","url":"https://evil.example/x|');
  });

  it('chat replies: Markdown from the model is escaped, code included, and confirmations show arguments literally', () => {
    const reply = chatReplyBlocks({
      text: HOSTILE_BLOCK,
      runs: [],
      pendingConfirmations: [{ id: 'c1', command: 'delete_task', args: {}, summary: `Delete ${HOSTILE}` }],
    } as never);
    expectSafe('chat reply', reply);
    expect(showsSomewhere(reply.blocks, HOSTILE)).toBe(true);
    expect(showsLiterally(reply.blocks, `Delete ${HOSTILE}`)).toBe(true);
    const long = chatReplyBlocks({ text: `${HOSTILE}\n\n`.repeat(3000), runs: [], pendingConfirmations: [] } as never);
    expectSafe('long chat reply', long);
    expect(long.files?.[0].content).toContain(HOSTILE);
  });

  it('markdownToMrkdwn and markdownToBlocks never let markup through', () => {
    for (const text of [
      HOSTILE,
      HOSTILE_BLOCK,
      HOSTILE_FORMATTING,
      `\`${HOSTILE}\``,
      `[click](javascript:alert(1)) [x](https://ok.example/a|b>c)`,
    ]) {
      expect(mrkdwnProblems(markdownToMrkdwn(text))).toEqual([]);
      expectSafe(text, { text: 'x', blocks: markdownToBlocks(text) });
    }
    expect(markdownToMrkdwn('[x](https://ok.example/a|b>c)')).toBe('x (https://ok.example/a%7Cb%3Ec)');
    expect(markdownToMrkdwn('<https://ok.example/p>')).toBe('https://ok.example/p');
    expect(markdownToMrkdwn('[click](javascript:alert(1))')).toBe('[click](javascript:alert(1))');
    expect(markdownToMrkdwn('`a<b`')).toBe('`a&lt;b`');
    expect(showsLiterally(markdownToBlocks(`\`\`\`\n${HOSTILE}\n\`\`\``), HOSTILE)).toBe(true);
  });

  it('help pages are valid for Slack', () => {
    expectSafe('overview', helpFor(ALL_COMMANDS)!);
    for (const command of ALL_COMMANDS) expectSafe(command.name, helpFor(ALL_COMMANDS, command.name)!);
  });
});

describe('hostile data stored and read back through real commands', () => {
  let rt: TestRuntime;
  beforeAll(async () => {
    rt = await makeTestRuntime();
  });
  afterAll(() => rt.cleanup());

  it('renders what the commands return for hostile projects, tasks and agents', async () => {
    // Project ids become folder names, so this one has no slash; it still has every formatting mark.
    const project = (await rt.exec('create_project', { name: `web ${HOSTILE_FORMATTING} <!here> & co` })) as { created: string };
    expect(project.created).toBeDefined();
    const task = (await rt.exec('create_task', { project_id: project.created, title: HOSTILE, description: HOSTILE_BLOCK })) as {
      created: string;
    };
    await rt.exec('create_agent', { name: `agent ${HOSTILE_FORMATTING}` });
    const runs: Array<[string, Record<string, unknown>]> = [
      ['list_projects', {}],
      ['get_task', { task_id: task.created }],
      ['list_tasks', {}],
      ['get_status', {}],
      ['list_agents', {}],
      ['get_recent_events', {}],
      ['get_task', { task_id: HOSTILE }],
    ];
    for (const [name, args] of runs) {
      const result = await rt.exec(name, args);
      const rendered = renderResult(name, args, result);
      expectSafe(name, rendered);
      expect({ name, shown: showsLiterally(rendered.blocks, HOSTILE) || showsLiterally(rendered.blocks, HOSTILE_FORMATTING) }).toEqual({
        name,
        shown: true,
      });
    }
  });
});
