/**
 * Checks what the app sends to Slack: Block Kit limits (Slack's reference), empty texts, select
 * options, ids Slack wants unique (an action_id within its block, a block_id within its message
 * or view; Slack answers invalid_blocks otherwise), and text that would ping, mention or link
 * when we did not write it. FakeSlack runs every message, view and response_url POST through it,
 * so every Slack test is checked.
 *
 * Telling our templates from text we did not write: the hostile fixture (hostile.ts) carries
 * markers no template of ours produces: a user id (U999) and a host (evil.example). Broadcasts
 * (<!channel>, <!here>, <!everyone>) and user-group mentions are never ours, so any of them is a
 * violation; so is a `<…>` Slack would read as markup but is none of the forms we write (user,
 * channel, date, http/https/mailto link), and an `&` or `<` left unescaped in mrkdwn.
 */

import { withoutDirectionOverrides } from '../../src/util/hidden-characters';
import { roomCallProblems } from './fake-slack-rooms';
import { workObjectProblems } from './fake-slack-work-objects';
import { dataTableProblems } from './slack-data-table';

export const HOSTILE_USER = 'U999';
export const HOSTILE_HOST = 'evil.example';

export interface Violation {
  /** Where in the payload, e.g. `blocks[3].text.text`. */
  path: string;
  problem: string;
}

export type PayloadKind = 'message' | 'view';

/** Slack's limits (Block Kit reference; chat.postMessage for `text`). */
export const SLACK_LIMITS = {
  messageBlocks: 50,
  viewBlocks: 100,
  /** Slack truncates past 40,000; we keep the fallback under 4,000 (issue 10). */
  topLevelText: 4000,
  sectionText: 3000,
  fieldText: 2000,
  fields: 10,
  headerText: 150,
  buttonText: 75,
  actionId: 255,
  blockId: 255,
  buttonValue: 2000,
  contextElements: 10,
  actionsElements: 25,
  optionText: 75,
  optionValue: 150,
  selectOptions: 100,
  checkboxOptions: 10,
  confirmTitle: 100,
  confirmText: 300,
  confirmButton: 30,
  modalTitle: 24,
  inputLabel: 2000,
  richText: 4000,
  /**
   * The plan and task_card blocks: Slack's reference gives their fields (a plain-text title, a
   * task_id, a status of pending, in_progress, complete or error) but no caps; these are the caps
   * of the blocks like them (a header's title, a task's title, the parser's 20 steps).
   */
  planTitle: 150,
  taskCardTitle: 200,
  planTasks: 20,
} as const;

const TASK_CARD_STATUSES = new Set(['pending', 'in_progress', 'complete', 'error']);

/** The streaming methods: markdown text and chunks (text, task steps, blocks) we send as a reply grows. */
export const STREAM_METHODS = new Set(['chat.startStream', 'chat.appendStream', 'chat.stopStream']);

/** The methods whose arguments carry message text, blocks or a view. */
export const MESSAGE_METHODS = new Set(['chat.postMessage', 'chat.postEphemeral', 'chat.update', 'chat.scheduleMessage', 'chat.meMessage']);
export const VIEW_METHODS = new Set(['views.publish', 'views.open', 'views.update', 'views.push']);

/** Problems with the mrkdwn `text` (empty list: fine). */
/**
 * A right-to-left or left-to-right override, embedding or isolate reverses or reorders whatever
 * Slack shows after it on the line, past the text it came in: none may reach Slack.
 */
export function openDirectionProblem(text: string): string | null {
  return withoutDirectionOverrides(text) === text ? null : `a right-to-left or left-to-right override in "${text.slice(0, 60)}"`;
}

/** Half of a character written as two UTF-16 units (a cut through an emoji): Slack shows "�". */
export function halfCharacterProblem(text: string): string | null {
  const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
  return !lone.test(text) ? null : `half of a character (a lone surrogate) in "${text.slice(0, 60)}"`;
}

export function mrkdwnProblems(text: string): string[] {
  const problems: string[] = [];
  for (const match of text.matchAll(/<([^<>]*)>/g)) {
    const inner = match[1];
    if (inner.startsWith('!date^')) continue;
    if (inner.startsWith('!')) problems.push(`a broadcast or group mention ${match[0]}`);
    else if (/^@[UW]/.test(inner)) {
      if (inner.slice(1).split('|')[0] === HOSTILE_USER) problems.push(`a mention of ${match[0]} taken from text we did not write`);
    } else if (/^#C/.test(inner)) continue;
    else if (/^(https?:\/\/|mailto:)/i.test(inner)) {
      if (inner.toLowerCase().includes(HOSTILE_HOST)) problems.push(`a link ${match[0]} taken from text we did not write`);
    } else problems.push(`unescaped markup ${match[0]}`);
  }
  if (/<(?![^<>]*>)/.test(text)) problems.push('an unescaped <');
  const amp = /&(?!amp;|lt;|gt;)/.exec(text);
  if (amp) problems.push(`an unescaped & in "${text.slice(Math.max(0, amp.index - 20), amp.index + 20)}"`);
  const direction = openDirectionProblem(text);
  if (direction) problems.push(direction);
  return problems;
}

class Checker {
  readonly violations: Violation[] = [];

  add(path: string, problem: string): void {
    this.violations.push({ path, problem });
  }

  length(path: string, text: unknown, max: number, what: string): void {
    if (typeof text === 'string' && text.length > max) this.add(path, `${what} is ${text.length} characters (at most ${max})`);
  }

  textObject(path: string, obj: unknown, max: number, options: { plainOnly?: boolean } = {}): void {
    if (!obj || typeof obj !== 'object') {
      this.add(path, 'missing text object');
      return;
    }
    const t = obj as { type?: string; text?: unknown };
    if (t.type !== 'plain_text' && t.type !== 'mrkdwn') {
      this.add(path, `text object of type ${String(t.type)}`);
      return;
    }
    if (options.plainOnly && t.type !== 'plain_text') this.add(path, 'must be plain_text');
    if (typeof t.text !== 'string' || t.text.length === 0) {
      this.add(`${path}.text`, 'empty text');
      return;
    }
    this.length(`${path}.text`, t.text, max, 'text');
    if (t.type === 'mrkdwn') for (const p of mrkdwnProblems(t.text)) this.add(`${path}.text`, p);
  }

  confirm(path: string, confirm: unknown): void {
    if (confirm === undefined) return;
    const c = confirm as Record<string, unknown>;
    this.textObject(`${path}.title`, c.title, SLACK_LIMITS.confirmTitle, { plainOnly: true });
    this.textObject(`${path}.text`, c.text, SLACK_LIMITS.confirmText);
    this.textObject(`${path}.confirm`, c.confirm, SLACK_LIMITS.confirmButton, { plainOnly: true });
    this.textObject(`${path}.deny`, c.deny, SLACK_LIMITS.confirmButton, { plainOnly: true });
  }

  options(path: string, options: unknown, max: number): Set<string> {
    const values = new Set<string>();
    if (!Array.isArray(options)) return values;
    if (options.length > max) this.add(path, `${options.length} options (at most ${max})`);
    options.forEach((option: Record<string, unknown>, i) => {
      this.textObject(`${path}[${i}].text`, option.text, SLACK_LIMITS.optionText);
      const value = option.value;
      if (typeof value !== 'string' || value.length === 0) this.add(`${path}[${i}].value`, 'empty option value');
      else {
        this.length(`${path}[${i}].value`, value, SLACK_LIMITS.optionValue, 'option value');
        if (values.has(value)) this.add(`${path}[${i}].value`, `duplicate option value ${value}`);
        values.add(value);
      }
    });
    return values;
  }

  element(path: string, el: Record<string, unknown>): void {
    if (typeof el.action_id === 'string') this.length(`${path}.action_id`, el.action_id, SLACK_LIMITS.actionId, 'action_id');
    switch (el.type) {
      case 'button':
        this.textObject(`${path}.text`, el.text, SLACK_LIMITS.buttonText, { plainOnly: true });
        this.length(`${path}.value`, el.value, SLACK_LIMITS.buttonValue, 'button value');
        this.confirm(`${path}.confirm`, el.confirm);
        break;
      case 'static_select':
      case 'multi_static_select': {
        if (el.options === undefined && el.option_groups === undefined) this.add(path, 'a select without options');
        const values = this.options(`${path}.options`, el.options, SLACK_LIMITS.selectOptions);
        if (Array.isArray(el.options) && el.options.length === 0) this.add(`${path}.options`, 'a select with no options');
        const initial = el.initial_option as { value?: string } | undefined;
        if (initial && !values.has(String(initial.value))) this.add(`${path}.initial_option`, 'initial_option is not one of the options');
        break;
      }
      case 'checkboxes':
      case 'radio_buttons':
        this.options(`${path}.options`, el.options, SLACK_LIMITS.checkboxOptions);
        break;
      case 'overflow':
        this.options(`${path}.options`, el.options, 5);
        break;
      default:
        break;
    }
  }

  richElements(path: string, elements: unknown): number {
    let size = 0;
    if (!Array.isArray(elements)) return size;
    elements.forEach((el: Record<string, unknown>, i) => {
      const at = `${path}[${i}]`;
      switch (el.type) {
        case 'rich_text_section':
        case 'rich_text_preformatted':
        case 'rich_text_quote':
          size += this.richElements(`${at}.elements`, el.elements);
          break;
        case 'rich_text_list':
          size += this.richElements(`${at}.elements`, el.elements);
          break;
        case 'text':
          if (typeof el.text !== 'string' || el.text.length === 0) this.add(`${at}.text`, 'empty rich text');
          size += String(el.text ?? '').length;
          break;
        case 'link':
          if (!/^(https?:\/\/|mailto:)/i.test(String(el.url))) this.add(`${at}.url`, `a link to ${String(el.url)}`);
          if (String(el.url).toLowerCase().includes(HOSTILE_HOST)) this.add(`${at}.url`, 'a link taken from text we did not write');
          size += String(el.text ?? el.url ?? '').length;
          break;
        case 'user':
          if (el.user_id === HOSTILE_USER) this.add(at, 'a mention taken from text we did not write');
          break;
        case 'broadcast':
        case 'usergroup':
          this.add(at, `a ${String(el.type)} mention`);
          break;
        default:
          break;
      }
    });
    return size;
  }

  block(path: string, block: Record<string, unknown>): void {
    if (typeof block.block_id === 'string') this.length(`${path}.block_id`, block.block_id, SLACK_LIMITS.blockId, 'block_id');
    switch (block.type) {
      case 'section': {
        if (block.text === undefined && block.fields === undefined) this.add(path, 'a section with neither text nor fields');
        if (block.text !== undefined) this.textObject(`${path}.text`, block.text, SLACK_LIMITS.sectionText);
        if (Array.isArray(block.fields)) {
          if (block.fields.length > SLACK_LIMITS.fields)
            this.add(`${path}.fields`, `${block.fields.length} fields (at most ${SLACK_LIMITS.fields})`);
          block.fields.forEach((f, i) => {
            this.textObject(`${path}.fields[${i}]`, f, SLACK_LIMITS.fieldText);
          });
        }
        if (block.accessory) this.element(`${path}.accessory`, block.accessory as Record<string, unknown>);
        break;
      }
      case 'header':
        this.textObject(`${path}.text`, block.text, SLACK_LIMITS.headerText, { plainOnly: true });
        break;
      case 'context': {
        const elements = Array.isArray(block.elements) ? block.elements : [];
        if (elements.length === 0 || elements.length > SLACK_LIMITS.contextElements)
          this.add(`${path}.elements`, `${elements.length} context elements (1 to ${SLACK_LIMITS.contextElements})`);
        elements.forEach((e: Record<string, unknown>, i) => {
          if (e.type === 'plain_text' || e.type === 'mrkdwn') this.textObject(`${path}.elements[${i}]`, e, SLACK_LIMITS.sectionText);
        });
        break;
      }
      case 'actions': {
        const elements = Array.isArray(block.elements) ? block.elements : [];
        if (elements.length === 0 || elements.length > SLACK_LIMITS.actionsElements)
          this.add(`${path}.elements`, `${elements.length} actions (1 to ${SLACK_LIMITS.actionsElements})`);
        const actionIds = new Set<string>();
        elements.forEach((e: Record<string, unknown>, i) => {
          this.element(`${path}.elements[${i}]`, e);
          if (typeof e.action_id !== 'string') return;
          if (actionIds.has(e.action_id)) this.add(`${path}.elements[${i}].action_id`, `duplicate action_id ${e.action_id} in one block`);
          actionIds.add(e.action_id);
        });
        break;
      }
      case 'input':
        this.textObject(`${path}.label`, block.label, SLACK_LIMITS.inputLabel, { plainOnly: true });
        if (block.hint !== undefined) this.textObject(`${path}.hint`, block.hint, SLACK_LIMITS.inputLabel, { plainOnly: true });
        if (block.element) this.element(`${path}.element`, block.element as Record<string, unknown>);
        break;
      case 'context_actions': {
        const elements = Array.isArray(block.elements) ? block.elements : [];
        if (elements.length === 0 || elements.length > 5) this.add(`${path}.elements`, `${elements.length} context actions (1 to 5)`);
        elements.forEach((e: Record<string, unknown>, i) => {
          if (e.type !== 'feedback_buttons') return;
          for (const side of ['positive_button', 'negative_button']) {
            const b = (e[side] ?? {}) as Record<string, unknown>;
            this.textObject(`${path}.elements[${i}].${side}.text`, b.text, SLACK_LIMITS.buttonText, { plainOnly: true });
            if (typeof b.value !== 'string' || !b.value) this.add(`${path}.elements[${i}].${side}.value`, 'empty feedback value');
            this.length(`${path}.elements[${i}].${side}.value`, b.value, SLACK_LIMITS.buttonValue, 'feedback value');
          }
        });
        break;
      }
      case 'data_table':
        for (const v of dataTableProblems(path, block)) this.add(v.path, v.problem);
        break;
      case 'plan': {
        if (typeof block.title !== 'string' || !block.title.trim()) this.add(`${path}.title`, 'a plan without a title');
        this.length(`${path}.title`, block.title, SLACK_LIMITS.planTitle, 'plan title');
        if (block.tasks !== undefined && !Array.isArray(block.tasks)) this.add(`${path}.tasks`, 'tasks is not a list');
        const tasks = Array.isArray(block.tasks) ? (block.tasks as Array<Record<string, unknown>>) : [];
        if (tasks.length > SLACK_LIMITS.planTasks)
          this.add(`${path}.tasks`, `${tasks.length} task cards (at most ${SLACK_LIMITS.planTasks})`);
        const ids = new Set<string>();
        tasks.forEach((task, i) => {
          if (task.type !== 'task_card') this.add(`${path}.tasks[${i}].type`, `a ${String(task.type)} in a plan (task_card only)`);
          else this.block(`${path}.tasks[${i}]`, task);
          if (typeof task.task_id === 'string' && ids.has(task.task_id))
            this.add(`${path}.tasks[${i}].task_id`, `duplicate task_id ${task.task_id} in one plan`);
          ids.add(String(task.task_id));
        });
        break;
      }
      case 'task_card': {
        if (typeof block.task_id !== 'string' || !block.task_id) this.add(`${path}.task_id`, 'a task card without a task_id');
        if (typeof block.title !== 'string' || !block.title.trim()) this.add(`${path}.title`, 'a task card without a title');
        this.length(`${path}.title`, block.title, SLACK_LIMITS.taskCardTitle, 'task card title');
        if (block.status !== undefined && !TASK_CARD_STATUSES.has(String(block.status)))
          this.add(`${path}.status`, `status ${String(block.status)} (pending, in_progress, complete or error)`);
        for (const key of ['details', 'output']) {
          const rich = block[key] as Record<string, unknown> | undefined;
          if (rich === undefined) continue;
          if (rich.type !== 'rich_text') this.add(`${path}.${key}`, `${key} must be one rich_text`);
          else this.block(`${path}.${key}`, rich);
        }
        break;
      }
      case 'rich_text': {
        const size = this.richElements(`${path}.elements`, block.elements);
        if (size > SLACK_LIMITS.richText) this.add(path, `rich text of ${size} characters (we keep it under ${SLACK_LIMITS.richText})`);
        break;
      }
      default:
        break;
    }
  }

  blocks(path: string, blocks: unknown, max: number): void {
    if (blocks === undefined) return;
    if (!Array.isArray(blocks)) {
      this.add(path, 'blocks is not a list');
      return;
    }
    if (blocks.length > max) this.add(path, `${blocks.length} blocks (at most ${max})`);
    const blockIds = new Set<string>();
    blocks.forEach((b, i) => {
      const block = b as Record<string, unknown>;
      this.block(`${path}[${i}]`, block);
      if (typeof block.block_id !== 'string') return;
      if (blockIds.has(block.block_id)) this.add(`${path}[${i}].block_id`, `duplicate block_id ${block.block_id} in one message or view`);
      blockIds.add(block.block_id);
    });
  }
}

/** Violations in a message payload (Web API arguments or a response_url body). */
export function validateMessage(payload: Record<string, unknown>): Violation[] {
  const check = new Checker();
  if (payload.delete_original === true || payload.delete_original === 'true') return [];
  const text = payload.text;
  const hasBlocks = Array.isArray(payload.blocks) && payload.blocks.length > 0;
  if (!hasBlocks && payload.attachments === undefined && (typeof text !== 'string' || text.trim() === ''))
    check.add('text', 'a message with no text and no blocks');
  if (typeof text === 'string') {
    check.length('text', text, SLACK_LIMITS.topLevelText - 1, 'the top-level text');
    if (payload.mrkdwn !== false && payload.mrkdwn !== 'false') for (const p of mrkdwnProblems(text)) check.add('text', p);
  }
  check.blocks('blocks', payload.blocks, SLACK_LIMITS.messageBlocks);
  return check.violations;
}

/** Violations in a view (App Home or modal). */
export function validateView(view: Record<string, unknown>): Violation[] {
  const check = new Checker();
  if (view.type === 'modal') {
    check.textObject('view.title', view.title, SLACK_LIMITS.modalTitle, { plainOnly: true });
    if (view.submit !== undefined) check.textObject('view.submit', view.submit, SLACK_LIMITS.modalTitle, { plainOnly: true });
    if (view.close !== undefined) check.textObject('view.close', view.close, SLACK_LIMITS.modalTitle, { plainOnly: true });
  }
  check.blocks('view.blocks', view.blocks, SLACK_LIMITS.viewBlocks);
  return check.violations;
}

/** Violations in a streaming call: its markdown text and chunks are mrkdwn we must have escaped. */
export function validateStream(args: Record<string, unknown>): Violation[] {
  const check = new Checker();
  const mrkdwn = (path: string, text: unknown) => {
    if (typeof text !== 'string') return;
    check.length(path, text, 12_000, 'streamed text');
    for (const p of mrkdwnProblems(text)) check.add(path, p);
  };
  mrkdwn('markdown_text', args.markdown_text);
  const chunks = Array.isArray(args.chunks) ? (args.chunks as Array<Record<string, unknown>>) : [];
  chunks.forEach((chunk, i) => {
    const at = `chunks[${i}]`;
    if (chunk.type === 'markdown_text') {
      if (typeof chunk.text !== 'string' || chunk.text === '') check.add(`${at}.text`, 'empty streamed text');
      mrkdwn(`${at}.text`, chunk.text);
    } else if (chunk.type === 'task_update') {
      if (typeof chunk.id !== 'string' || !chunk.id) check.add(`${at}.id`, 'a task step without an id');
      if (!['pending', 'in_progress', 'complete', 'error'].includes(String(chunk.status)))
        check.add(`${at}.status`, `status ${String(chunk.status)}`);
      for (const key of ['title', 'details', 'output']) mrkdwn(`${at}.${key}`, chunk[key]);
    } else if (chunk.type === 'plan_update') mrkdwn(`${at}.title`, chunk.title);
    else if (chunk.type === 'blocks') check.blocks(`${at}.blocks`, chunk.blocks, SLACK_LIMITS.messageBlocks);
    else check.add(`${at}.type`, `a chunk of type ${String(chunk.type)}`);
  });
  check.blocks('blocks', args.blocks, SLACK_LIMITS.messageBlocks);
  return check.violations;
}

/** Violations in one Web API call's arguments (methods that carry no text: none). */
export function validateCall(method: string, args: Record<string, unknown>): Violation[] {
  const found = callProblems(method, args);
  // Every text a person reads, including those the checks by kind of payload do not look at.
  const direction = visibleTexts(args).flatMap((text) =>
    [openDirectionProblem(text), halfCharacterProblem(text)].filter((p) => p !== null),
  );
  const fresh = direction.filter((problem) => !found.some((v) => v.problem === problem));
  return [...found, ...fresh.map((problem) => ({ path: 'text', problem }))];
}

function callProblems(method: string, args: Record<string, unknown>): Violation[] {
  if (MESSAGE_METHODS.has(method)) return [...validateMessage(args), ...workObjectProblems(method, args)];
  if (method === 'entity.presentDetails') return workObjectProblems(method, args);
  if (method === 'chat.unfurl') {
    const unfurls = (args.unfurls ?? {}) as Record<string, Record<string, unknown>>;
    const blocks = Object.entries(unfurls).flatMap(([url, unfurl]) =>
      validateMessage({ blocks: unfurl?.blocks }).map((v) => ({ ...v, path: `unfurls[${url}].${v.path}` })),
    );
    return [...workObjectProblems(method, args), ...blocks];
  }
  if (STREAM_METHODS.has(method)) return validateStream(args);
  if (VIEW_METHODS.has(method) && args.view && typeof args.view === 'object') return validateView(args.view as Record<string, unknown>);
  if (method.startsWith('agents.conversations.')) {
    const blocks = method === 'agents.conversations.setView' && Array.isArray(args.blocks) ? validateView({ blocks: args.blocks }) : [];
    return [...roomCallProblems(method, args), ...blocks];
  }
  return [];
}

function decodeEntities(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/**
 * The texts a person would read, one string per text object or rich_text block: plain_text and
 * rich text as they are, mrkdwn with its entities decoded. `literalOnly` keeps only the texts Slack
 * shows character for character (plain_text, rich text), where formatting characters stay put.
 */
export function visibleTexts(payload: unknown, options: { literalOnly?: boolean } = {}): string[] {
  const out: string[] = [];
  const richText = (elements: unknown): string =>
    Array.isArray(elements)
      ? elements
          .map((e: Record<string, unknown>) =>
            e.type === 'text' ? String(e.text) : e.type === 'link' ? String(e.text ?? e.url) : e.elements ? richText(e.elements) : '',
          )
          .join('')
      : '';
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const child of node) walk(child);
      return;
    }
    if (!node || typeof node !== 'object') return;
    const obj = node as Record<string, unknown>;
    if (obj.type === 'rich_text') {
      out.push(richText(obj.elements));
      return;
    }
    if (obj.type === 'plain_text' && typeof obj.text === 'string') {
      out.push(obj.text);
      return;
    }
    // A plan's and a task card's titles are plain text: shown literally.
    if ((obj.type === 'plan' || obj.type === 'task_card') && typeof obj.title === 'string') out.push(obj.title);
    if (obj.type === 'mrkdwn' && typeof obj.text === 'string') {
      if (!options.literalOnly) out.push(decodeEntities(obj.text));
      return;
    }
    for (const [key, value] of Object.entries(obj)) {
      if (key === 'text' && typeof value === 'string') {
        if (!options.literalOnly) out.push(decodeEntities(value));
      } else walk(value);
    }
  };
  walk(payload);
  return out;
}

/** Readable list of violations for a failure message. */
export function describeViolations(where: string, violations: Violation[]): string {
  return violations.map((v) => `  ${where} ${v.path}: ${v.problem}`).join('\n');
}
