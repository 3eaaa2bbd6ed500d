import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.join(__dirname, '..', '..');

/** The scope each Web API method the app calls needs (a new method must be added here). */
const METHOD_SCOPES: Record<string, string[]> = {
  'chat.postMessage': ['chat:write'],
  'chat.postEphemeral': ['chat:write'],
  'chat.update': ['chat:write'],
  'chat.getPermalink': [],
  'conversations.replies': ['channels:history'],
  'reactions.add': ['reactions:write'],
  'users.info': ['users:read'],
  'conversations.create': ['channels:manage'],
  'conversations.archive': ['channels:manage'],
  'conversations.open': ['im:write'],
  'files.uploadV2': ['files:write'],
  'views.open': [],
  'views.publish': [],
};

/** The scope each subscribed event needs. */
const EVENT_SCOPES: Record<string, string[]> = {
  app_home_opened: [],
  app_mention: ['app_mentions:read'],
  'message.channels': ['channels:history'],
  'message.im': ['im:history'],
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
  const methods = [...new Set([...code.matchAll(/client\.([a-z]+)\.([A-Za-z0-9]+)\(/g)].map((m) => `${m[1]}.${m[2]}`))];

  it('asks for exactly the bot scopes the code uses', () => {
    expect(methods.filter((m) => !(m in METHOD_SCOPES))).toEqual([]);
    const events = yamlList(manifest, 'bot_events');
    expect(events.filter((e) => !(e in EVENT_SCOPES))).toEqual([]);
    const needed = new Set([...ALWAYS, ...methods.flatMap((m) => METHOD_SCOPES[m]), ...events.flatMap((e) => EVENT_SCOPES[e])]);
    expect(yamlList(manifest, 'bot').sort()).toEqual([...needed].sort());
  });

  it('suggests in /aq only what works without a model key', () => {
    const hint = /usage_hint:\s*"(.*)"/.exec(manifest)?.[1] ?? '';
    const words = hint.split('|').map((part) => part.trim().split(/\s+/)[0]);
    const catalog = code.match(/name: '([a-z_]+)'/g)?.map((m) => m.slice(7, -1)) ?? [];
    expect(words.filter((word) => word !== 'help' && !catalog.includes(word))).toEqual([]);
  });
});
