import { z } from 'zod';
import { ALL_COMMANDS } from '../../../src/commands';
import { defineCommand } from '../../../src/commands/catalog';
import { commandFields } from '../../../src/commands/help';
import { firstSentence } from '../../../src/slack/blocks/help';
import { startTestApp, type TestApp } from '../../support/slack-app';
import { FakeSlack, type ResponsePost } from '../../support/fake-slack';
import { HOSTILE, showsLiterally } from '../../support/hostile';
import { blockActions, slashCommand } from '../../support/slack-payloads';
import { visibleTexts } from '../../support/slack-validator';

const SECRET = 'test-signing-secret';
const LONG_LOG = Array.from({ length: 3000 }, (_, i) => `line ${i + 1}: compiling module ${i} <ok> & done`).join('\n');

/** Test-only: output far longer than one message holds. */
const longLog = defineCommand({
  name: 'long_log_probe',
  group: 'system',
  kind: 'change',
  description: 'Test-only: returns a 3,000-line log.',
  input: z.object({}),
  async run() {
    return { lines: 3000, log: LONG_LOG };
  },
});

describe('/aq arguments, help and long output through the real Bolt app', () => {
  let app: TestApp;
  let slack: FakeSlack;

  beforeEach(async () => {
    app = await startTestApp({}, { commands: [...ALL_COMMANDS, longLog] });
    slack = app.slack;
  });
  afterEach(() => app.stop());

  const exec = (name: string, args: Record<string, unknown> = {}) =>
    app.started.runtime.handler.executeAny(name, args, { source: 'system' });
  const send = async (text: string, channelId = 'C1'): Promise<ResponsePost> => {
    const before = slack.responses.length;
    await FakeSlack.postToApp(app.url, slashCommand({ text, channelId, responseUrl: slack.responseUrl(`s${before}`) }), {
      signingSecret: SECRET,
    });
    await slack.waitFor(() => slack.responses.length > before, `the answer to /aq ${text}`);
    return slack.responses[before];
  };
  const press = async (value: string, actionId = 'aq_help_page'): Promise<ResponsePost> => {
    const before = slack.responses.length;
    const payload = blockActions({ actionId, value, responseUrl: slack.responseUrl(`h${before}`) });
    await FakeSlack.postToApp(app.url, `payload=${encodeURIComponent(JSON.stringify(payload))}`, { signingSecret: SECRET });
    await slack.waitFor(() => slack.responses.length > before, `help page ${value}`);
    return slack.responses[before];
  };
  const seen = (response: ResponsePost) => visibleTexts(response.body).join('\n');
  /** Help as read, without the code and bold marks around names. */
  const plainHelp = (text: string) => text.replace(/[`*]/g, '');

  it('reads curly quotes like straight ones and takes the project from the channel', async () => {
    await exec('create_project', { name: 'web' });
    await exec('set_project_channel', { project_id: 'web', channel_id: 'CWEB' });
    const answer = await send('create_task title=\u201cFix the login page\u201d description=\u2018It crashes\u2019', 'CWEB');
    expect(answer.body.response_type).toBe('ephemeral');
    const { tasks } = (await exec('list_tasks', { project_id: 'web' })) as { tasks: Array<{ title: string; description: string }> };
    expect(tasks).toEqual([expect.objectContaining({ title: 'Fix the login page', project_id: 'web' })]);
  });

  it('says which words it did not understand instead of dropping them, and runs nothing', async () => {
    await exec('create_project', { name: 'web' });
    const extra = await send('create_task web "A title" stray words');
    expect(extra.body.text).toContain("I did not understand 'stray', 'words'");
    expect(seen(extra)).toContain('/aq help create_task');
    const unknownKey = await send('list_projects colour=red');
    expect(unknownKey.body.text).toContain("I did not understand 'colour=…': list_projects takes");
    expect(((await exec('list_tasks', {})) as { total: number }).total).toBe(0);
  });

  it('shows a hostile title literally in the task card and never pings (the validator checks every payload)', async () => {
    await exec('create_project', { name: 'web' });
    const created = (await exec('create_task', { project_id: 'web', title: HOSTILE, description: `${HOSTILE}\n\`\`\`\n${HOSTILE}` }))
      .created as string;
    const card = await send(`get_task ${created}`);
    expect(showsLiterally(card.body.blocks, HOSTILE)).toBe(true);
    expect(String(card.body.text)).toContain('&lt;!channel&gt;');
    const missing = await send('get_task <!channel>');
    expect(showsLiterally(missing.body.blocks, "'<!channel>'")).toBe(true);
  });

  it('help lists every catalog command, and its pages show each in full with fields and an example', async () => {
    const overview = await send('help');
    const overviewText = plainHelp(seen(overview));
    const buttons = (overview.body.blocks as Array<{ accessory?: { action_id: string; value: string } }>)
      .map((b) => b.accessory)
      .filter((a): a is { action_id: string; value: string } => a?.action_id === 'aq_help_page');
    expect(buttons.length).toBeGreaterThanOrEqual(10);
    const pages: string[] = [];
    for (const { value } of buttons) {
      let page = await press(value);
      pages.push(plainHelp(seen(page)));
      // Follow "Next page" within a group until there is none.
      for (;;) {
        const next = (page.body.blocks as Array<{ type: string; elements?: Array<{ text: { text: string }; value: string }> }>)
          .flatMap((b) => b.elements ?? [])
          .find((e) => e.text?.text === 'Next page ▶');
        if (!next) break;
        page = await press(next.value);
        pages.push(plainHelp(seen(page)));
      }
    }
    const all = pages.join('\n');
    for (const command of [...ALL_COMMANDS, longLog]) {
      // The overview gives each command its first sentence; the group pages give all of it.
      expect(overviewText).toContain(`${command.name} — ${plainHelp(firstSentence(command.description))}`);
      expect(all).toContain(`${command.name} — ${plainHelp(command.description)}`);
      expect(all).toMatch(new RegExp(`Example: /aq ${command.name}\\b`));
      for (const field of commandFields(command)) expect(all).toContain(`• ${field.name} (`);
    }
    const one = plainHelp(seen(await send('help create_task')));
    expect(one).toContain('• title (string, required)');
    expect(one).toContain('Example: /aq create_task title="Fix the login page" description="The form crashes when the password is empty"');
    expect(seen(await send('help tasks'))).toContain('Tasks commands');
    expect((await send('help frobnicate')).body.text).toContain("There is no command or group called 'frobnicate'");
  });

  it("a command's help has one button row Slack accepts (no action id twice), and each of its buttons works", async () => {
    // The fake Slack's validator fails the test on a repeated action_id in a block, as real Slack does.
    const help = await send('help create_task');
    const row = (help.body.blocks as Array<{ type: string; elements?: Array<{ action_id: string; value: string }> }>).find(
      (b) => b.type === 'actions',
    );
    const ids = row?.elements?.map((e) => e.action_id) ?? [];
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
    const [overview, group] = row?.elements ?? [];
    expect(plainHelp(seen(await press(overview.value, overview.action_id)))).toContain('Agent Queue commands');
    expect(plainHelp(seen(await press(group.value, group.action_id)))).toContain('Tasks commands');
  });

  it('shows the start of a long log with a note and uploads the whole of it as a file', async () => {
    const answer = await send('long_log_probe');
    const text = seen(answer);
    expect(text).toContain('line 1: compiling module 0 <ok> & done');
    expect(text).toContain('Showing the first 30 lines of 3,000 lines');
    expect(text).toContain('attached as long_log_probe-log.txt');
    await slack.waitFor(() => slack.callsTo('files.completeUploadExternal').length === 1, 'the upload to finish');
    expect(slack.callsTo('files.getUploadURLExternal')[0].args).toMatchObject({ filename: 'long_log_probe-log.txt' });
    expect(slack.uploads).toHaveLength(1);
    expect(slack.uploads[0].content).toBe(LONG_LOG);
    expect(slack.callsTo('files.completeUploadExternal')[0].args).toMatchObject({ channel_id: 'C1' });
  });
});
