import { createHash } from 'node:crypto';
import type { WebClient } from '@slack/web-api';
import type { Actor } from '../../commands/catalog';
import type { CommandHandler } from '../../commands/handler';
import type { Database } from '../../db/database';
import type { SlackFeatures } from '../ai-surfaces/features';
import { clip } from '../blocks/common';

/** What the plan canvas needs from the process (the Runtime has all of it). */
export interface PlanCanvasSource {
  handler: Pick<CommandHandler, 'execute'>;
  db: Pick<Database, 'state'>;
}

/** Where a plan's canvas is and the hash of the text the app last wrote in it. */
interface StoredCanvas {
  canvasId: string;
  channelId: string;
  hash: string;
}

export interface StepChangesView {
  added: Array<{ title: string; position: number }>;
  removed: Array<{ id: string; title: string }>;
  changed: Array<{ id: string; from: string; to: string }>;
}

/** What reading a plan's canvas back found. */
export type CanvasEdits =
  | { kind: 'none' }
  | { kind: 'unchanged' }
  | { kind: 'rejected'; reason: string }
  | { kind: 'edits'; taskId: string; hash: string; changes: StepChangesView };

export type CanvasApply = CanvasEdits | { kind: 'applied'; changes: StepChangesView } | { kind: 'stale'; edits: CanvasEdits };

/** The canvas markdown cap we hold to (the fake Slack's, from the view cap: Slack documents none of its own). */
export const CANVAS_MAX_BYTES = 1_000_000;

type PlanSteps = { title: string; steps: Array<{ title: string; description: string }> };

/** A step's details without the parts the app adds around them, its headings turned to depth 4 (never read as a step). */
function stepBody(description: string): string {
  const details = description.split(/^## Task Details[ \t]*\r?\n/m).at(-1) ?? description;
  const body = literal(details.replace(/^#{1,3}(?=[ \t])/gm, '####').trim());
  // The parser skips a step whose body is under 20 characters: keep each step a step.
  return body.length >= 20 ? body : `${body}\n\n(no further details)`.trim();
}

/**
 * Agent text in a canvas stays text: a canvas reads `![](@U…)`, `![](#C…)` and `![](!here)`-style
 * embeds as mentions, so their bracket is escaped and shows literally (Markdown's `\[`).
 */
const literal = (text: string) => text.replace(/!\[([^\]]*)\]\(/g, '!\\[$1](');

/** One line, so a title cannot open a heading or a section of its own. */
const oneLine = (text: string) => literal(text.replace(/\s+/g, ' ').trim());

/**
 * The plan as canvas markdown that reads back through the plan parser as the same steps: a
 * `## Step N: <title>` heading per step, its details under it.
 */
export function planCanvasMarkdown(plan: PlanSteps, budget = CANVAS_MAX_BYTES): string {
  const head = `# Plan of ${oneLine(plan.title)}\n\nEdit the steps below before the plan is approved: rename a step's heading, add a "## Step: …" heading with a line or more of details under it, or delete a step. Then press *Apply canvas edits* in the room to see the changes before they apply.\n`;
  const sections = plan.steps.map((s, i) => `\n## Step ${i + 1}: ${oneLine(s.title)}\n\n${stepBody(s.description)}\n`);
  let text = head + sections.join('');
  // Past the cap, details are cut step by step (titles stay, so every step still reads back).
  for (let cut = 2000; Buffer.byteLength(text) > budget && cut >= 40; cut = Math.floor(cut / 2)) {
    text =
      head + plan.steps.map((s, i) => `\n## Step ${i + 1}: ${oneLine(s.title)}\n\n${stepBody(s.description).slice(0, cut)}\n`).join('');
  }
  return text;
}

/** HTML entities a canvas may read back in place of the characters written. */
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: ' ' };

/**
 * The canvas text in the form it is compared in. Slack may read back what the app wrote in a form
 * of its own (line ends, trailing spaces, blank lines, `*` or `•` for `-` bullets, `1)` for `1.`,
 * entities for `&`, `<` and `>`, Markdown escapes dropped or added): none of that is a person's edit.
 */
export function comparableCanvasText(content: string): string {
  return content
    .replace(/\r\n?/g, '\n')
    .replace(/\u200b/g, '')
    .replace(/\u00a0/g, ' ')
    .replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_, name: string) => ENTITIES[name])
    .replace(/\\([\\`*_{}[\]()#+\-.!|>~])/g, '$1')
    .split('\n')
    .map((line) =>
      line
        .replace(/[ \t]+$/, '')
        .replace(/^(\s*)[*+•](?=\s)/, '$1-')
        .replace(/^(\s*\d+)\)(?=\s)/, '$1.'),
    )
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** The hash of a canvas's text in its comparable form: a mere read-back of what the app wrote hashes the same. */
export function canvasHash(content: string): string {
  return createHash('sha256').update(comparableCanvasText(content)).digest('hex').slice(0, 32);
}

function storeKey(taskId: string): string {
  return `slack_plan_canvas:${taskId}`;
}

const SYSTEM: Actor = { source: 'system' };

/**
 * A plan's canvas in its task's room (canvases.create, setView canvas, setCanvasContent), where
 * people edit the plan before it is approved. The app records a hash of what it wrote; a canvas
 * read back (getCanvas) with another hash was edited by a person, and its text goes through
 * revise_plan: first to show the changes, then, on confirmation, to apply them.
 */
export class PlanCanvases {
  constructor(
    private readonly source: PlanCanvasSource,
    private readonly features: SlackFeatures,
    private readonly log: (message: string) => void,
  ) {}

  private stored(taskId: string): Promise<StoredCanvas | null> {
    return this.source.db.state.get<StoredCanvas | null>(storeKey(taskId), null);
  }

  private async plan(taskId: string): Promise<(PlanSteps & { taskId: string }) | null> {
    const plan = await this.source.handler.execute('get_plan', { task_id: taskId }, SYSTEM);
    if ('error' in plan || plan.steps.length === 0) return null;
    return { taskId: plan.task_id, title: plan.title, steps: plan.steps };
  }

  /**
   * Writes the plan in its canvas: the first time, in the room `channelId` (a new canvas, shown
   * as the room's Plan tab); afterwards, in the canvas it has. True when the canvas shows it.
   */
  async write(client: WebClient, taskId: string, channelId?: string): Promise<boolean> {
    const plan = await this.plan(taskId);
    if (!plan) return false;
    const known = await this.stored(plan.taskId);
    const room = known?.channelId ?? channelId;
    if (!room || !(await this.features.usable('plan_canvas'))) return false;
    const content = planCanvasMarkdown(plan);
    const hash = canvasHash(content);
    if (known) {
      if (known.hash === hash) return true;
      await client.agents.conversations.setCanvasContent({ channel: room, canvas_id: known.canvasId, content });
      await this.source.db.state.set(storeKey(plan.taskId), { ...known, hash } satisfies StoredCanvas);
      return true;
    }
    const created = await this.features.attempt('plan_canvas', 'canvases.create', () =>
      client.canvases.create({ title: clip(`Plan: ${oneLine(plan.title)}`, 250) }),
    );
    if (!created.ok || !created.value.canvas_id) return false;
    const canvasId = created.value.canvas_id;
    await client.agents.conversations.setCanvasContent({ channel: room, canvas_id: canvasId, content });
    const view = await this.features.attempt('plan_canvas', 'agents.conversations.setView', () =>
      client.agents.conversations.setView({
        channel_id: room,
        type: 'canvas',
        view_key: 'plan',
        name: 'Plan',
        canvas_id: canvasId,
        access_level: 'write',
        agent_content_hash: hash,
      }),
    );
    if (!view.ok) return false;
    await this.source.db.state.set(storeKey(plan.taskId), { canvasId, channelId: room, hash } satisfies StoredCanvas);
    return true;
  }

  /** Reads the canvas back: a person's edits, as the changes they would make (nothing is applied). */
  async edits(client: WebClient, taskId: string, actor: Actor): Promise<CanvasEdits> {
    const owner = await this.plan(taskId);
    const known = owner && (await this.stored(owner.taskId));
    if (!owner || !known) return { kind: 'none' };
    const read = await client.agents.conversations.getCanvas({ channel: known.channelId, canvas_id: known.canvasId });
    const content = String(read.content ?? '');
    const hash = canvasHash(content);
    if (hash === known.hash) return { kind: 'unchanged' };
    const preview = await this.source.handler.execute('revise_plan', { task_id: owner.taskId, plan: content }, actor);
    if ('error' in preview) return { kind: 'rejected', reason: preview.error };
    const changes = { added: preview.added, removed: preview.removed, changed: preview.changed };
    if (changes.added.length + changes.removed.length + changes.changed.length === 0) return { kind: 'unchanged' };
    return { kind: 'edits', taskId: owner.taskId, hash, changes };
  }

  /**
   * Applies the edits a person saw (`hash`: the canvas they were read from). A canvas edited
   * again since is shown again instead; once applied, the canvas is rewritten from the plan.
   */
  async apply(client: WebClient, taskId: string, hash: string, actor: Actor): Promise<CanvasApply> {
    const known = await this.stored(taskId);
    if (!known) return { kind: 'none' };
    const read = await client.agents.conversations.getCanvas({ channel: known.channelId, canvas_id: known.canvasId });
    const content = String(read.content ?? '');
    if (canvasHash(content) !== hash) return { kind: 'stale', edits: await this.edits(client, taskId, actor) };
    const applied = await this.source.handler.execute('revise_plan', { task_id: taskId, plan: content, confirm: true }, actor);
    if ('error' in applied) return { kind: 'rejected', reason: applied.error };
    await this.write(client, taskId).catch((err) => this.log(`The plan canvas of task ${taskId} was not rewritten: ${String(err)}`));
    return { kind: 'applied', changes: { added: applied.added, removed: applied.removed, changed: applied.changed } };
  }

  /**
   * Before the task that made a plan is approved: edits in its canvas not applied yet (or that
   * cannot apply), which a person must apply or discard first. Null when there are none, the
   * task made no plan, or the canvas cannot be read (approval is never held up by Slack).
   */
  async beforeApproval(client: WebClient, taskId: string, actor: Actor): Promise<CanvasEdits | null> {
    if (!(await this.stored(taskId))) return null;
    const edits = await this.edits(client, taskId, actor).catch((err) => {
      this.log(`The plan canvas of task ${taskId} was not read before its approval: ${String(err)}`);
      return null;
    });
    return edits && (edits.kind === 'edits' || edits.kind === 'rejected') ? edits : null;
  }

  /** Puts the plan back in the canvas, dropping a person's edits. */
  async discard(client: WebClient, taskId: string): Promise<void> {
    const known = await this.stored(taskId);
    if (!known) return;
    await this.source.db.state.set(storeKey(taskId), { ...known, hash: '' } satisfies StoredCanvas);
    await this.write(client, taskId);
  }
}
