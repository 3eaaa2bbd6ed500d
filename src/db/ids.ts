import { randomInt } from 'node:crypto';

/**
 * Project, agent and hook ids: the name lowercased with spaces replaced by hyphens (the spec's
 * rule). Runs of whitespace count as one space so "My  Project" and "My Project" agree.
 */
export function nameToId(name: string): string {
  return name.trim().toLowerCase().replace(/\s+/g, '-');
}

/** A repo id is the repo name lowercased. */
export function repoNameToId(name: string): string {
  return name.trim().toLowerCase();
}

/** Ids that become folder names must not be able to walk out of their parent folder. */
export function assertSafePathSegment(id: string, what: string): void {
  const unsafe = unsafePathSegment(id, what);
  if (unsafe) throw new Error(unsafe);
}

/** Why `id` cannot be a folder name (a sentence), or null when it can. */
export function unsafePathSegment(id: string, what: string): string | null {
  if (!id || id === '.' || id === '..' || /[/\\\0]/.test(id) || id.startsWith('.')) {
    return `${what} ${JSON.stringify(id)} cannot be used as a folder name: avoid slashes and a leading dot.`;
  }
  return null;
}

const ADJECTIVES = [
  'amber',
  'bold',
  'brave',
  'bright',
  'brisk',
  'calm',
  'clever',
  'cool',
  'crisp',
  'curious',
  'daring',
  'deft',
  'eager',
  'early',
  'fair',
  'fancy',
  'fast',
  'fierce',
  'fine',
  'fleet',
  'fresh',
  'gentle',
  'glad',
  'golden',
  'grand',
  'happy',
  'hardy',
  'honest',
  'humble',
  'jolly',
  'keen',
  'kind',
  'lively',
  'lucky',
  'merry',
  'mighty',
  'nimble',
  'noble',
  'plucky',
  'polite',
  'proud',
  'quick',
  'quiet',
  'rapid',
  'ready',
  'royal',
  'rustic',
  'sharp',
  'shiny',
  'silent',
  'silver',
  'sleek',
  'smart',
  'snappy',
  'solid',
  'steady',
  'sturdy',
  'sunny',
  'swift',
  'tidy',
  'true',
  'vivid',
  'warm',
  'wise',
];

const NOUNS = [
  'badger',
  'bear',
  'beaver',
  'bison',
  'cedar',
  'comet',
  'condor',
  'crane',
  'dolphin',
  'eagle',
  'falcon',
  'ferret',
  'finch',
  'fox',
  'gecko',
  'heron',
  'ibis',
  'jaguar',
  'koala',
  'lark',
  'lemur',
  'lion',
  'lynx',
  'maple',
  'marten',
  'meadow',
  'moose',
  'newt',
  'oak',
  'orca',
  'osprey',
  'otter',
  'owl',
  'panda',
  'pike',
  'puffin',
  'quail',
  'raven',
  'reef',
  'river',
  'robin',
  'salmon',
  'seal',
  'sparrow',
  'spruce',
  'stork',
  'swan',
  'tiger',
  'trout',
  'tulip',
  'turtle',
  'viper',
  'walrus',
  'whale',
  'willow',
  'wolf',
  'wren',
  'yak',
  'zebra',
  'aspen',
  'birch',
  'cobra',
  'dingo',
  'egret',
];

/** A human-readable task id such as `swift-fox-042`. Call again on collision. */
export function randomTaskId(digits = 3): string {
  const adjective = ADJECTIVES[randomInt(ADJECTIVES.length)];
  const noun = NOUNS[randomInt(NOUNS.length)];
  const number = String(randomInt(10 ** digits)).padStart(digits, '0');
  return `${adjective}-${noun}-${number}`;
}

/**
 * Picks a task id that `exists` says is free. The id space is 4 million; after a few collisions
 * the suffix grows, so the loop always ends.
 */
export async function generateTaskId(exists: (id: string) => Promise<boolean>): Promise<string> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const id = randomTaskId(attempt < 8 ? 3 : attempt < 20 ? 5 : 8);
    if (!(await exists(id))) return id;
  }
  throw new Error('Could not find a free task id after 50 attempts.');
}
