/**
 * The code-channel half of the fake Slack: `agents.conversations.*` (task rooms) and the
 * canvases they show, kept as Slack keeps them, each payload checked against Slack's documented
 * limits (local `@slack/web-api` agents.d.ts; docs.slack.dev agents.conversations.*), and a
 * switch that refuses the methods the way a workspace without code channels does.
 */

import type { Violation } from './slack-validator';

export const ROOM_METHODS = [
  'agents.conversations.create',
  'agents.conversations.setProperties',
  'agents.conversations.setView',
  'agents.conversations.removeView',
  'agents.conversations.listViews',
  'agents.conversations.setCommands',
  'agents.conversations.setCanvasContent',
  'agents.conversations.getCanvas',
  'agents.conversations.archive',
] as const;
export type RoomMethod = (typeof ROOM_METHODS)[number];

/** What a workspace without code channels answers (the errors the app must fall back on). */
export type RoomRefusal = 'not_allowed' | 'unknown_method' | 'missing_scope' | 'feature_not_enabled';

/** Slack's documented limits for code channels. */
export const ROOM_LIMITS = {
  contextBarItems: 5,
  contextBarKey: 64,
  contextBarLabel: 128,
  url: 2048,
  /** At most 10 commands across all agents in a channel. */
  commands: 10,
  commandName: 31,
  /** setView content (html, diff): larger returns content_too_large. */
  viewContentBytes: 1_000_000,
  /** Canvas markdown: Slack documents no separate cap, so the view cap is the one we hold to. */
  canvasContentBytes: 1_000_000,
  /** A block_kit view is a surface like a modal or Home. */
  viewBlocks: 100,
  sessionTitle: 200,
} as const;

export const CONTEXT_BAR_ICONS = new Set([
  'branch',
  'folder',
  'hierarchy',
  'life-ring',
  'link',
  'globe',
  'terminal',
  'code',
  'search',
  'lock',
]);
const VIEW_TYPES = new Set(['html', 'diff', 'block_kit', 'canvas', 'pull_request']);
/** Slack's own slash commands a room command must not shadow (a sample; Slack's list is longer). */
const BUILTIN_COMMANDS = new Set([
  'archive',
  'invite',
  'join',
  'leave',
  'msg',
  'dm',
  'remind',
  'shrug',
  'status',
  'topic',
  'who',
  'me',
  'away',
  'feed',
  'mute',
  'search',
]);

export interface FakeRoomView {
  view_id: string;
  view_key: string;
  type: string;
  label: string;
  content_version: number;
  content?: string;
  blocks?: unknown[];
  canvas_id?: string;
  pr_url?: string;
  base_branch?: string;
  head_branch?: string;
  agent_content_hash?: string;
}

export interface FakeRoom {
  channel_id: string;
  name: string;
  session_id?: string;
  is_private: boolean;
  origin?: { channel_id: string; message_ts: string };
  context_bar: Array<Record<string, unknown>>;
  summary_message?: Record<string, unknown>;
  agent_resource?: Record<string, unknown>;
  views: Map<string, FakeRoomView>;
  commands: Array<Record<string, unknown>>;
  archived: boolean;
  summary_message_ts?: string;
}

export interface FakeCanvas {
  canvas_id: string;
  content: string;
  title: string;
}

type Answer = Record<string, unknown>;

/** The problems of one agents.conversations.* call (each one is also a Slack error, see answer()). */
export function roomCallProblems(method: string, args: Record<string, unknown>): Violation[] {
  const problems: Violation[] = [];
  const add = (path: string, problem: string) => problems.push({ path, problem });
  const tooLong = (path: string, value: unknown, max: number) => {
    if (typeof value === 'string' && value.length > max) add(path, `${value.length} characters (at most ${max})`);
  };
  if (method === 'agents.conversations.setProperties') {
    const bar = (args.code_channel as Record<string, unknown> | undefined)?.context_bar_items;
    if (bar !== undefined) {
      const items = Array.isArray(bar) ? (bar as Array<Record<string, unknown>>) : [];
      if (items.length > ROOM_LIMITS.contextBarItems)
        add('code_channel.context_bar_items', `${items.length} items (at most ${ROOM_LIMITS.contextBarItems})`);
      const keys = new Set<string>();
      items.forEach((item, i) => {
        const at = `code_channel.context_bar_items[${i}]`;
        if (typeof item.key !== 'string' || !item.key) add(`${at}.key`, 'no key');
        else if (keys.has(item.key)) add(`${at}.key`, `duplicate key ${item.key}`);
        else keys.add(item.key);
        if (typeof item.label !== 'string' || !item.label) add(`${at}.label`, 'no label');
        tooLong(`${at}.key`, item.key, ROOM_LIMITS.contextBarKey);
        tooLong(`${at}.label`, item.label, ROOM_LIMITS.contextBarLabel);
        tooLong(`${at}.url`, item.url, ROOM_LIMITS.url);
        if (item.icon !== undefined && !CONTEXT_BAR_ICONS.has(String(item.icon))) add(`${at}.icon`, `icon ${String(item.icon)}`);
        if (item.item_type !== undefined && item.item_type !== 'info' && item.item_type !== 'action')
          add(`${at}.item_type`, `item_type ${String(item.item_type)}`);
      });
    }
  }
  if (method === 'agents.conversations.setCommands') {
    const commands = Array.isArray(args.commands) ? (args.commands as Array<Record<string, unknown>>) : null;
    if (!commands) add('commands', 'not a list');
    else {
      if (commands.length > ROOM_LIMITS.commands) add('commands', `${commands.length} commands (at most ${ROOM_LIMITS.commands})`);
      const names = new Set<string>();
      commands.forEach((c, i) => {
        const name = String(c.name ?? '');
        if (!/^[a-z0-9_-]{1,31}$/.test(name))
          add(`commands[${i}].name`, `name "${name}" (1-31 lowercase letters, digits, - or _, no slash)`);
        if (names.has(name)) add(`commands[${i}].name`, `duplicate name ${name}`);
        if (BUILTIN_COMMANDS.has(name)) add(`commands[${i}].name`, `${name} is one of Slack's own commands`);
        names.add(name);
      });
    }
  }
  if (method === 'agents.conversations.setView') {
    const type = String(args.type ?? 'html');
    if (!VIEW_TYPES.has(type)) add('type', `view type ${type}`);
    if ((type === 'html' || type === 'diff') && typeof args.content !== 'string') add('content', `a ${type} view needs content`);
    if (typeof args.content === 'string' && Buffer.byteLength(args.content) > ROOM_LIMITS.viewContentBytes)
      add('content', `${Buffer.byteLength(args.content)} bytes (at most ${ROOM_LIMITS.viewContentBytes})`);
    if (type !== 'diff' && type !== 'pull_request' && !args.view_key) add('view_key', `a ${type} view needs a view_key`);
    if (type === 'block_kit') {
      if (!Array.isArray(args.blocks) || args.blocks.length === 0) add('blocks', 'a block_kit view needs blocks');
      else if (args.blocks.length > ROOM_LIMITS.viewBlocks)
        add('blocks', `${args.blocks.length} blocks (at most ${ROOM_LIMITS.viewBlocks})`);
    }
    if (type === 'canvas' && !args.canvas_id) add('canvas_id', 'a canvas view needs canvas_id');
    if (type === 'pull_request' && !args.pr_url) add('pr_url', 'a pull_request view needs pr_url');
    tooLong('pr_url', args.pr_url, ROOM_LIMITS.url);
  }
  if (method === 'agents.conversations.setCanvasContent' && typeof args.content === 'string') {
    const bytes = Buffer.byteLength(args.content);
    if (bytes > ROOM_LIMITS.canvasContentBytes) add('content', `${bytes} bytes (at most ${ROOM_LIMITS.canvasContentBytes})`);
  }
  if (method === 'agents.conversations.create') {
    const origin = [args.origin_channel_id, args.origin_message_ts].filter(Boolean).length;
    if (origin === 1) add('origin_channel_id', 'origin_channel_id and origin_message_ts go together');
    if (origin === 0 && !args.name) add('name', 'a room without an origin needs a name');
  }
  return problems;
}

/** Which Slack error a call with these problems gets. */
function errorFor(method: string, problems: Violation[]): string {
  if (problems.some((p) => p.path === 'content' && p.problem.includes('bytes'))) return 'content_too_large';
  if (method === 'agents.conversations.setCommands' && problems.some((p) => p.problem.includes('commands (at most')))
    return 'too_many_commands';
  return 'invalid_arguments';
}

const bool = (v: unknown) => v === true || v === 'true';

/** The rooms and canvases a fake workspace has, and what it answers each agents.conversations.* call. */
export class FakeRooms {
  readonly rooms = new Map<string, FakeRoom>();
  readonly canvases = new Map<string, FakeCanvas>();
  private readonly refused = new Map<string, RoomRefusal>();
  private counter = 0;

  /** Refuses the methods (all of agents.conversations.* by default) as a workspace without code channels does. */
  refuse(error: RoomRefusal, methods: readonly string[] = ROOM_METHODS): void {
    for (const m of methods) this.refused.set(m, error);
  }

  /** Offers the methods again. */
  allow(methods: readonly string[] = ROOM_METHODS): void {
    for (const m of methods) this.refused.delete(m);
  }

  /** The room whose session is this id. */
  bySession(sessionId: string): FakeRoom | undefined {
    return [...this.rooms.values()].find((r) => r.session_id === sessionId);
  }

  /**
   * Slack re-saves a canvas in a form of its own (unverified against real Slack, so this plays the
   * likely changes): CRLF line ends, `*` bullets, entities for `&`, `<` and `>`, Markdown escapes
   * dropped, trailing spaces after headings, and extra blank lines. What is said does not change.
   */
  normalizeCanvas(canvasId: string): void {
    const canvas = this.canvases.get(canvasId);
    if (!canvas) throw new Error(`FakeRooms: no canvas ${canvasId}`);
    canvas.content = canvas.content
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/\\\[/g, '[')
      .replace(/^- /gm, '* ')
      .replace(/^(#+ .*)$/gm, '$1  ')
      .replace(/\n\n/g, '\n\n\n')
      .replace(/\n/g, '\r\n');
  }

  /** A person edits a canvas in Slack. */
  editCanvas(canvasId: string, content: string): void {
    const canvas = this.canvases.get(canvasId);
    if (!canvas) throw new Error(`FakeRooms: no canvas ${canvasId}`);
    canvas.content = content;
  }

  /** Slack takes no new or edited message in an archived room. */
  refusesMessage(method: string, args: Record<string, unknown>): boolean {
    return (method === 'chat.postMessage' || method === 'chat.update') && this.rooms.get(String(args.channel))?.archived === true;
  }

  handles(method: string): boolean {
    return method.startsWith('agents.conversations.') || method === 'canvases.create';
  }

  answer(method: string, args: Record<string, unknown>): Answer {
    const refusal = this.refused.get(method);
    if (refusal)
      return { ok: false, error: refusal, ...(refusal === 'missing_scope' && { needed: 'code_channels:manage', provided: 'chat:write' }) };
    if (method === 'canvases.create')
      return { ok: true, canvas_id: this.newCanvas(String((args.title as string | undefined) ?? 'Canvas'), args) };
    const problems = roomCallProblems(method, args);
    if (problems.length > 0)
      return { ok: false, error: errorFor(method, problems), detail: problems.map((p) => `${p.path}: ${p.problem}`).join('; ') };
    if (method === 'agents.conversations.create') return this.create(args);
    if (method === 'agents.conversations.getCanvas') return this.getCanvas(args);
    if (method === 'agents.conversations.setCanvasContent') return this.setCanvasContent(args);
    const channelId = String(args.channel_id ?? args.channel ?? '');
    const room = this.rooms.get(channelId);
    if (!room) return { ok: false, error: 'channel_not_found' };
    if (method === 'agents.conversations.listViews') return { ok: true, views: [...room.views.values()].map(listed) };
    if (room.archived) return { ok: false, error: 'is_archived' };
    switch (method) {
      case 'agents.conversations.setProperties':
        return this.setProperties(room, args);
      case 'agents.conversations.setView':
        return this.setView(room, args);
      case 'agents.conversations.removeView':
        return this.removeView(room, args);
      case 'agents.conversations.setCommands':
        room.commands = (args.commands as Array<Record<string, unknown>>).map((c) => ({ ...c }));
        return { ok: true, channel_id: room.channel_id, command_count: room.commands.length };
      case 'agents.conversations.archive':
        room.archived = true;
        if (typeof args.summary_message_ts === 'string') room.summary_message_ts = args.summary_message_ts;
        return { ok: true };
      default:
        return { ok: false, error: 'unknown_method' };
    }
  }

  private create(args: Record<string, unknown>): Answer {
    const sessionId = typeof args.session_id === 'string' && args.session_id ? args.session_id : undefined;
    const existing = sessionId ? this.bySession(sessionId) : undefined;
    if (existing) return { ok: true, channel_id: existing.channel_id };
    this.counter += 1;
    const channelId = `CR${String(this.counter).padStart(4, '0')}`;
    this.rooms.set(channelId, {
      channel_id: channelId,
      name: String(args.name ?? `session-${this.counter}`),
      session_id: sessionId,
      is_private: bool(args.is_private),
      ...(args.origin_channel_id
        ? { origin: { channel_id: String(args.origin_channel_id), message_ts: String(args.origin_message_ts) } }
        : {}),
      context_bar: [],
      views: new Map(),
      commands: [],
      archived: false,
    });
    return { ok: true, channel_id: channelId };
  }

  private setProperties(room: FakeRoom, args: Record<string, unknown>): Answer {
    const code = (args.code_channel ?? {}) as Record<string, unknown>;
    if (Array.isArray(code.context_bar_items))
      room.context_bar = (code.context_bar_items as Array<Record<string, unknown>>).map((i) => ({ ...i }));
    if (code.summary_message) room.summary_message = code.summary_message as Record<string, unknown>;
    if (args.agent_resource) room.agent_resource = args.agent_resource as Record<string, unknown>;
    return { ok: true, channel_id: room.channel_id };
  }

  private setView(room: FakeRoom, args: Record<string, unknown>): Answer {
    const type = String(args.type ?? 'html');
    // A diff view is one per channel; so, here, is the pull request view.
    const key = type === 'diff' ? 'diff' : type === 'pull_request' && !args.view_key ? 'pull_request' : String(args.view_key);
    if (type === 'canvas' && !this.canvases.has(String(args.canvas_id))) return { ok: false, error: 'canvas_not_found' };
    const before = room.views.get(key);
    this.counter += 1;
    const view: FakeRoomView = {
      view_id: before?.view_id ?? `VT${String(this.counter).padStart(4, '0')}`,
      view_key: key,
      type,
      label: String(
        args.name ??
          key
            .split('/')
            .pop()
            ?.replace(/\.html?$/, '') ??
          key,
      ),
      content_version: (before?.content_version ?? 0) + 1,
      ...(typeof args.content === 'string' && { content: args.content }),
      ...(Array.isArray(args.blocks) && { blocks: args.blocks }),
      ...(typeof args.canvas_id === 'string' && { canvas_id: args.canvas_id }),
      ...(typeof args.pr_url === 'string' && { pr_url: args.pr_url }),
      ...(typeof args.base_branch === 'string' && { base_branch: args.base_branch }),
      ...(typeof args.head_branch === 'string' && { head_branch: args.head_branch }),
      ...(typeof args.agent_content_hash === 'string' && { agent_content_hash: args.agent_content_hash }),
    };
    room.views.set(key, view);
    return {
      ok: true,
      channel_id: room.channel_id,
      view_id: view.view_id,
      type,
      content_version: view.content_version,
      ...(view.canvas_id && { canvas_id: view.canvas_id }),
    };
  }

  private removeView(room: FakeRoom, args: Record<string, unknown>): Answer {
    if (Boolean(args.view_key) === Boolean(args.view_id))
      return { ok: false, error: 'invalid_arguments', detail: 'give exactly one of view_key or view_id' };
    const view = [...room.views.values()].find((v) => v.view_key === args.view_key || v.view_id === args.view_id);
    if (!view) return { ok: false, error: 'view_not_found' };
    room.views.delete(view.view_key);
    return { ok: true, channel_id: room.channel_id, view_id: view.view_id };
  }

  private newCanvas(title: string, args: Record<string, unknown>): string {
    this.counter += 1;
    const id = `F${String(this.counter).padStart(6, '0')}CV`;
    const content = ((args.document_content as Record<string, unknown> | undefined)?.markdown as string | undefined) ?? '';
    this.canvases.set(id, { canvas_id: id, title, content });
    return id;
  }

  private getCanvas(args: Record<string, unknown>): Answer {
    const canvas = this.canvases.get(String(args.canvas_id));
    if (!canvas) return { ok: false, error: 'canvas_not_found' };
    return { ok: true, canvas_id: canvas.canvas_id, title: canvas.title, content: canvas.content, comments: [], has_more_comments: false };
  }

  private setCanvasContent(args: Record<string, unknown>): Answer {
    const canvas = this.canvases.get(String(args.canvas_id));
    if (!canvas) return { ok: false, error: 'canvas_not_found' };
    const before = canvas.content.split('\n');
    const after = String(args.content).split('\n');
    canvas.content = String(args.content);
    const changed = Math.max(before.length, after.length) - before.filter((line, i) => after[i] === line).length;
    return { ok: true, canvas_id: canvas.canvas_id, sections_changed_count: changed };
  }
}

function listed(view: FakeRoomView): Record<string, unknown> {
  return {
    view_id: view.view_id,
    view_key: view.view_key,
    label: view.label,
    content_version: view.content_version,
    date_added: 1_700_000_000,
    ...(view.canvas_id && { file_id: view.canvas_id }),
  };
}
