import { ALL_COMMANDS } from '../../../src/commands';
import { parseCommandArgs, parseSlashArgs, tokenize } from '../../../src/slack/args';
import { markdownToMrkdwn } from '../../../src/slack/mrkdwn';

const command = (name: string) => ALL_COMMANDS.find((c) => c.name === name)!;

describe('slash-command arguments', () => {
  it('keeps quoted values and JSON whole', () => {
    expect(tokenize('create_task title="Fix the login" description=\'it crashes\' priority=5')).toEqual([
      'create_task',
      'title=Fix the login',
      'description=it crashes',
      'priority=5',
    ]);
    expect(tokenize('create_hook trigger={"type": "periodic", "interval_seconds": 60} name=x')).toEqual([
      'create_hook',
      'trigger={"type": "periodic", "interval_seconds": 60}',
      'name=x',
    ]);
    expect(tokenize('x title=“smart quotes”')).toEqual(['x', 'title=smart quotes']);
  });

  it('maps key=value pairs, JSON values, mentions, and bare words onto required fields', () => {
    expect(parseCommandArgs(command('get_task'), ['swift-fox-042'])).toEqual({ task_id: 'swift-fox-042' });
    expect(parseCommandArgs(command('set_project_channel'), ['demo', '<#C0123|aq-demo>'])).toEqual({
      project_id: 'demo',
      channel_id: 'C0123',
    });
    expect(parseCommandArgs(command('create_hook'), ['trigger={"type":"event","event_type":"task_failed"}', 'name=h'])).toEqual({
      trigger: { type: 'event', event_type: 'task_failed' },
      name: 'h',
    });
    expect(parseCommandArgs(command('create_task'), ['title=T', 'priority=5', 'requires_approval=true'])).toEqual({
      title: 'T',
      priority: 5,
      requires_approval: true,
    });
    expect(parseCommandArgs(command('get_task'), ['042'])).toEqual({ task_id: '042' });
  });

  it('reports bare words that no field takes, and reads Slack-escaped and curly-quoted text', () => {
    expect(parseSlashArgs(command('get_task'), ['swift-fox-042', 'extra', 'words'])).toEqual({
      args: { task_id: 'swift-fox-042' },
      unused: ['extra', 'words'],
    });
    expect(tokenize('create_task title=\u201ca &amp; b &lt;c&gt;\u201d')).toEqual(['create_task', 'title=a & b <c>']);
  });
});

describe('markdownToMrkdwn', () => {
  it('converts headings, emphasis, links, lists and code for Slack', () => {
    const md =
      '# Summary\n\nDid **three** things, *carefully*, see [the PR](https://x.test/1).\n\n- one\n- two\n\n1. first\n2. second\n\n```ts\nconst a = 1 < 2;\n```\n\nUse `npm test` & relax.';
    expect(markdownToMrkdwn(md)).toBe(
      '*Summary*\nDid *three* things, _carefully_, see the PR (https://x.test/1).\n• one\n• two\n1. first\n2. second\n```\nconst a = 1 &lt; 2;\n```\nUse `npm test` &amp; relax.',
    );
  });

  it('escapes characters Slack treats as markup', () => {
    expect(markdownToMrkdwn('a <b> & c')).toBe('a &lt;b&gt; &amp; c');
  });
});
