import type { KnownBlock } from '@slack/types';
import { commandFields } from '../../commands/help';
import { COMMAND_GROUPS, isAdminCommand, type AnyCommand } from '../../commands/catalog';
import { actionsBlock } from './actions';
import { button, context, header, LIMITS, section, type Rendered } from './common';
import { md, mdJoin, type Mrkdwn } from './text';
import { HELP_BUTTONS } from './action-ids';

/** Commands per help page; a group with more is shown over several pages. */
const COMMANDS_PER_PAGE = 15;

type Field = ReturnType<typeof commandFields>[number];

function title(group: string): string {
  return `${group[0].toUpperCase()}${group.slice(1)}`;
}

/** Example values that read like real ones, by field name, then by type. */
const SAMPLE_BY_NAME: Record<string, string> = {
  task_id: 'swift-fox-042',
  project_id: 'my-app',
  agent_id: 'claude-1',
  repo_id: 'my-app-repo',
  hook_id: 'nightly-check',
  workspace_id: 'my-app-ws-1',
  channel_id: '#aq-my-app',
  name: '"My app"',
  title: '"Fix the login page"',
  description: '"The form crashes when the password is empty"',
  url: 'https://github.com/acme/my-app.git',
  path: 'src/index.ts',
  command: '"npm test"',
};

function sample(field: Field): string {
  if (SAMPLE_BY_NAME[field.name]) return SAMPLE_BY_NAME[field.name];
  if (field.choices?.length) return field.choices[0];
  if (field.default !== undefined) return typeof field.default === 'string' ? `"${field.default}"` : JSON.stringify(field.default);
  if (field.type.startsWith('list')) return '[]';
  if (/integer|number/.test(field.type)) return '1';
  if (field.type.includes('boolean')) return 'true';
  if (field.type.includes('object')) return '{}';
  return `"${field.name.replace(/_/g, ' ')}"`;
}

/** One runnable example: the command with its required fields filled in. */
export function exampleFor(command: AnyCommand): string {
  const required = commandFields(command).filter((f) => f.required);
  return ['/aq', command.name, ...required.map((f) => `${f.name}=${sample(f)}`)].join(' ');
}

function fieldLine(f: Field): Mrkdwn {
  const facts = [f.type, f.required ? 'required' : 'optional'];
  if (f.default !== undefined) facts.push(`default ${JSON.stringify(f.default)}`);
  const choices = f.choices
    ? md` One of: ${mdJoin(
        f.choices.map((c) => md`\`${c}\``),
        ', ',
      )}.`
    : md``;
  return md`• \`${f.name}\` (${facts.join(', ')})${f.description ? md` — ${f.description}` : md``}${choices}`;
}

/** Everything about one command: description, fields with types and defaults, and an example. */
export function commandHelpBlocks(command: AnyCommand): KnownBlock[] {
  const fields = commandFields(command);
  const lines: Mrkdwn[] = [md`*\`${command.name}\`* — ${command.description}`];
  if (isAdminCommand(command)) lines.push(md`_Admin only (AQ_ADMINS)._`);
  lines.push(...(fields.length ? fields.map(fieldLine) : [md`No fields.`]));
  lines.push(md`Example: \`${exampleFor(command)}\``);
  return packSections(lines);
}

/** mrkdwn lines in as few sections as fit; a line longer than a section gets sections of its own. */
function packSections(lines: Mrkdwn[]): KnownBlock[] {
  const out: KnownBlock[] = [];
  let current = '';
  for (const line of lines) {
    for (let i = 0; i < line.text.length || i === 0; i += LIMITS.sectionText - 100) {
      const piece = line.text.slice(i, i + LIMITS.sectionText - 100);
      if (current && current.length + piece.length + 1 > LIMITS.sectionText) {
        out.push(section(current));
        current = '';
      }
      current = current ? `${current}\n${piece}` : piece;
    }
  }
  if (current) out.push(section(current));
  return out;
}

function groupsOf(commands: readonly AnyCommand[]): Array<{ group: string; commands: AnyCommand[] }> {
  return COMMAND_GROUPS.map((group) => ({ group, commands: commands.filter((c) => c.group === group) })).filter((g) => g.commands.length);
}

/** A description's first sentence (the overview lists every command; its page says the rest). */
export function firstSentence(description: string): string {
  const end = /(?<!\b(?:e\.g|i\.e|etc|vs))[.;](\s|$)/.exec(description);
  const sentence = end ? description.slice(0, end.index) : description;
  return sentence.length > 110 ? `${sentence.slice(0, 109).replace(/\s+\S*$/, '')}…` : sentence;
}

/** `/aq help`: how to run commands, then every group with its commands and a button to its page. */
export function helpOverview(commands: readonly AnyCommand[]): Rendered {
  const blocks: KnownBlock[] = [
    header('Agent Queue commands'),
    section(
      md`Run a command with \`/aq COMMAND key=value …\` — bare words fill the required fields in order, so \`/aq get_task swift-fox-042\` works. In a project's channel, commands default to that project. \`/aq help COMMAND\` or \`/aq help GROUP\` shows fields, defaults and an example; anything else after \`/aq\` goes to the assistant.`
        .text,
    ),
  ];
  for (const { group, commands: inGroup } of groupsOf(commands)) {
    const lines = [md`*${title(group)}* (${inGroup.length})`, ...inGroup.map((c) => md`\`${c.name}\` — ${firstSentence(c.description)}`)];
    const sections = packSections(lines);
    const first = sections[0] as KnownBlock & { accessory?: unknown };
    first.accessory = button(`${title(group)} ▸`, HELP_BUTTONS.page, `${group}:0`);
    blocks.push(...sections);
  }
  blocks.push(context(`${commands.length} commands in ${groupsOf(commands).length} groups.`));
  return { text: `Agent Queue: ${commands.length} commands. Run /aq help GROUP or /aq help COMMAND for details.`, blocks };
}

/** A group's page: each command in full, with buttons to the other pages and back to the overview. */
export function helpGroupPage(commands: readonly AnyCommand[], group: string, page = 0): Rendered | null {
  const groups = groupsOf(commands);
  const index = groups.findIndex((g) => g.group === group);
  if (index < 0) return null;
  const inGroup = groups[index].commands;
  const pages = Math.ceil(inGroup.length / COMMANDS_PER_PAGE);
  const current = Math.min(Math.max(0, page), pages - 1);
  const shown = inGroup.slice(current * COMMANDS_PER_PAGE, (current + 1) * COMMANDS_PER_PAGE);
  const blocks: KnownBlock[] = [header(`${title(group)} commands${pages > 1 ? ` (page ${current + 1} of ${pages})` : ''}`)];
  for (const command of shown) blocks.push(...commandHelpBlocks(command), { type: 'divider' });
  const nav = [button('◀ All commands', HELP_BUTTONS.page, 'overview')];
  if (current > 0) nav.push(button('◀ Previous page', HELP_BUTTONS.page, `${group}:${current - 1}`));
  if (current + 1 < pages) nav.push(button('Next page ▶', HELP_BUTTONS.page, `${group}:${current + 1}`));
  const previous = groups[index - 1];
  const next = groups[index + 1];
  if (previous) nav.push(button(`◀ ${title(previous.group)}`, HELP_BUTTONS.page, `${previous.group}:0`));
  if (next) nav.push(button(`${title(next.group)} ▶`, HELP_BUTTONS.page, `${next.group}:0`));
  blocks.push(actionsBlock(nav));
  return { text: `${title(group)} commands: ${shown.map((c) => c.name).join(', ')}`, blocks };
}

/** `/aq help X`: a command, a group, or the overview; null when X is neither. */
export function helpFor(commands: readonly AnyCommand[], topic?: string): Rendered | null {
  if (!topic) return helpOverview(commands);
  const wanted = topic.toLowerCase();
  const command = commands.find((c) => c.name === wanted);
  if (command) {
    const blocks = [
      ...commandHelpBlocks(command),
      actionsBlock([
        button('◀ All commands', HELP_BUTTONS.page, 'overview'),
        button(`${title(command.group)} ▸`, HELP_BUTTONS.page, `${command.group}:0`),
      ]),
    ];
    return { text: `${command.name}: ${command.description}`.slice(0, LIMITS.messageText), blocks };
  }
  return helpGroupPage(commands, wanted);
}

/** The page a help button asks for (`overview` or `group:page`). */
export function helpPage(commands: readonly AnyCommand[], value: string): Rendered {
  if (value === 'overview') return helpOverview(commands);
  const [group, page] = value.split(':');
  return helpGroupPage(commands, group, Number(page) || 0) ?? helpOverview(commands);
}
