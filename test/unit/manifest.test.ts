import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.join(__dirname, '..', '..');

/** The scope each Web API method the app calls needs (a new method must be added here). */
const METHOD_SCOPES: Record<string, string[]> = {
  'chat.postMessage': ['chat:write'],
  'chat.postEphemeral': ['chat:write'],
  'chat.update': ['chat:write'],
  'chat.getPermalink': [],
  // A thread's messages: channels:history in public channels, groups:history in private ones.
  'conversations.replies': ['channels:history', 'groups:history'],
  'reactions.add': ['reactions:write'],
  // Channel intake: 👀 while triaging, and the text of a message someone reacted to.
  'reactions.remove': ['reactions:write'],
  'conversations.history': ['channels:history', 'groups:history'],
  'users.info': ['users:read'],
  'conversations.create': ['channels:manage'],
  'conversations.archive': ['channels:manage'],
  'conversations.open': ['im:write'],
  'files.uploadV2': ['files:write'],
  'views.open': [],
  'views.publish': [],
  // Slack's AI surfaces (README, "Slack's AI surfaces"): streaming and agent sessions need
  // chat:write; the assistant's status, prompts and titles need assistant:write.
  'chat.startStream': ['chat:write'],
  'chat.appendStream': ['chat:write'],
  'chat.stopStream': ['chat:write'],
  'agents.sessions.setStatus': ['chat:write'],
  // A task's room (Slack's code channels, README "Task rooms"); auth.test needs no scope.
  'agents.conversations.create': ['code_channels:manage'],
  'agents.conversations.setProperties': ['code_channels:manage'],
  'agents.conversations.setView': ['code_channels:manage'],
  'agents.conversations.setCommands': ['code_channels:manage'],
  'agents.conversations.archive': ['code_channels:manage'],
  // The plan canvas of a task's room (README "Plans in Slack").
  'agents.conversations.setCanvasContent': ['code_channels:manage'],
  'agents.conversations.getCanvas': ['code_channels:manage'],
  'canvases.create': ['canvases:write'],
  'auth.test': [],
  'assistant.threads.setStatus': ['assistant:write'],
  'assistant.threads.setSuggestedPrompts': ['assistant:write'],
  'assistant.threads.setTitle': ['assistant:write'],
  // A task's Work Object details pane (README "Slack surfaces"): no scope.
  'entity.presentDetails': [],
  // A pasted task link's unfurl (README "Task links").
  'chat.unfurl': ['links:write'],
};

/** Bolt's Assistant helpers and the Web API method each one calls. */
const BOLT_HELPERS: Record<string, string> = {
  setSuggestedPrompts: 'assistant.threads.setSuggestedPrompts',
  setTitle: 'assistant.threads.setTitle',
  setStatus: 'assistant.threads.setStatus',
  sayStream: 'chat.startStream',
};

/** The scope each subscribed event needs. */
const EVENT_SCOPES: Record<string, string[]> = {
  app_home_opened: [],
  app_mention: ['app_mentions:read'],
  'message.channels': ['channels:history'],
  'message.groups': ['groups:history'],
  'message.im': ['im:history'],
  assistant_thread_started: ['assistant:write'],
  assistant_thread_context_changed: ['assistant:write'],
  agent_session_stopped: ['assistant:write'],
  // Agent messaging (features.agent_view): what the person is viewing; no scope.
  app_context_changed: [],
  // Messages people write in a task's room (code channel); no scope of its own.
  'message.session': [],
  // Channel intake's reaction trigger (README "Channel intake").
  reaction_added: ['reactions:read'],
  // A person opened a task's Work Object: no scope.
  entity_details_requested: [],
  // A task link pasted in a message or the composer.
  link_shared: ['links:read'],
};

/** /aq needs `commands`; project channels are posted to without joining them first. */
const ALWAYS = ['commands', 'chat:write.public'];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sources(full);
    return full.endsWith('.ts') ? [readFileSync(full, 'utf8')] : [];
  });
}

/** The items of a YAML list that follows `key:` at some indentation. */
function yamlList(text: string, key: string): string[] {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.trim() === `${key}:`);
  const items: string[] = [];
  for (const line of lines.slice(start + 1)) {
    const item = /^\s*-\s+(\S+)\s*$/.exec(line);
    if (!item) break;
    items.push(item[1]);
  }
  return items;
}

describe('manifest.yml', () => {
  const manifest = readFileSync(path.join(root, 'manifest.yml'), 'utf8');
  const code = [...sources(path.join(root, 'src')), ...sources(path.join(root, 'listeners'))].join('\n');
  const methods = [
    ...new Set([
      ...[...code.matchAll(/client\.((?:[a-z]+\.)+[A-Za-z0-9]+)\(/g)].map((m) => m[1]),
      ...[...code.matchAll(/(?<![.\w])(setSuggestedPrompts|setTitle|setStatus|sayStream)\(/g)].map((m) => BOLT_HELPERS[m[1]]),
    ]),
  ];

  it('asks for exactly the bot scopes the code uses', () => {
    expect(methods.filter((m) => !(m in METHOD_SCOPES))).toEqual([]);
    const events = yamlList(manifest, 'bot_events');
    expect(events.filter((e) => !(e in EVENT_SCOPES))).toEqual([]);
    const needed = new Set([...ALWAYS, ...methods.flatMap((m) => METHOD_SCOPES[m]), ...events.flatMap((e) => EVENT_SCOPES[e])]);
    expect(yamlList(manifest, 'bot').sort()).toEqual([...needed].sort());
  });

  it("declares Slack's agent messaging, not the retired assistant view, with the events the code listens to", () => {
    expect(manifest).toMatch(/\n {2}agent_view:\n {4}agent_description: \S/);
    expect(manifest).not.toMatch(/^\s*assistant_view:/m);
    const events = yamlList(manifest, 'bot_events');
    // The DM opened is app_home_opened (tab "messages"); the context the person views, app_context_changed.
    expect(events).toEqual(expect.arrayContaining(['app_home_opened', 'app_context_changed', 'message.im', 'agent_session_stopped']));
    expect(code).toContain("app.event('app_context_changed'");
    expect(code).toContain("app.event('app_home_opened'");
    expect(code).toContain("app.event('agent_session_stopped'");
    // Workspaces whose app still has the assistant panel keep it: Bolt's Assistant stays registered.
    expect(code).toContain('new Assistant(');
    expect(events).not.toContain('assistant_thread_started');
    expect(methods).toEqual(
      expect.arrayContaining([
        'chat.startStream',
        'agents.sessions.setStatus',
        'assistant.threads.setStatus',
        // Through Bolt's Assistant helpers.
        'assistant.threads.setSuggestedPrompts',
        'assistant.threads.setTitle',
      ]),
    );
  });

  it('declares what task rooms need: the code channels feature, its scope and the room messages event', () => {
    expect(manifest).toMatch(/\n {2}code_channels:\n {4}enabled: true\n/);
    expect(yamlList(manifest, 'bot')).toContain('code_channels:manage');
    expect(yamlList(manifest, 'bot_events')).toContain('message.session');
    // Socket Mode routes the rooms' slash commands by itself; HTTP mode needs slash_command_url (README).
    expect(manifest).toMatch(/\n {2}socket_mode_enabled: true\n/);
    expect(methods).toEqual(expect.arrayContaining(['agents.conversations.create', 'agents.conversations.setCommands']));
  });

  it('subscribes to the Work Object event the code answers', () => {
    expect(code).toContain("app.event('entity_details_requested'");
    expect(yamlList(manifest, 'bot_events')).toContain('entity_details_requested');
    expect(methods).toContain('entity.presentDetails');
  });

  it('declares what task link unfurls need: link_shared, the links scopes, and where the unfurl domain goes', () => {
    expect(code).toContain("app.event('link_shared'");
    expect(yamlList(manifest, 'bot_events')).toContain('link_shared');
    expect(yamlList(manifest, 'bot')).toEqual(expect.arrayContaining(['links:read', 'links:write']));
    // The domain is the deployment's own (AQ_PUBLIC_URL): the manifest says where it goes, under features.
    expect(manifest).toMatch(/\n {2}# unfurl_domains:\n {2}# {3}- aq\.example\.com\n/);
  });

  it('subscribes to messages of public and private channels, since task threads may live in either', () => {
    const events = yamlList(manifest, 'bot_events');
    expect(code).toContain("new Set(['channel', 'group'])");
    expect(events).toEqual(expect.arrayContaining(['message.channels', 'message.groups']));
    expect(yamlList(manifest, 'bot')).toEqual(expect.arrayContaining(['channels:history', 'groups:history']));
  });

  it('suggests in /aq only what works without a model key', () => {
    const hint = /usage_hint:\s*"(.*)"/.exec(manifest)?.[1] ?? '';
    const words = hint.split('|').map((part) => part.trim().split(/\s+/)[0]);
    const catalog = code.match(/name: '([a-z_]+)'/g)?.map((m) => m.slice(7, -1)) ?? [];
    expect(words.filter((word) => word !== 'help' && !catalog.includes(word))).toEqual([]);
  });
});
