import type { WebClient } from '@slack/web-api';
import { settleAll } from '../util/settle-all';

const TTL_MS = 60 * 60 * 1000;
const MAX_ENTRIES = 2000;

/**
 * People's display names from users.info, remembered for an hour so a thread of twenty replies
 * by three people costs three calls. A name that cannot be looked up (no users:read, a deleted
 * user) is the user id itself, and is remembered too, so a failing lookup is not retried per message.
 */
export class UserNames {
  private readonly cache = new Map<string, { name: string; at: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  async of(client: WebClient, userId: string): Promise<string> {
    const hit = this.cache.get(userId);
    if (hit && this.now() - hit.at < TTL_MS) return hit.name;
    const name = await lookUp(client, userId);
    if (this.cache.size >= MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(userId, { name, at: this.now() });
    return name;
  }

  /** Names for several ids at once (one lookup per id not yet known). */
  async many(client: WebClient, userIds: Iterable<string>): Promise<Map<string, string>> {
    const ids = [...new Set(userIds)];
    const names = await settleAll(ids.map((id) => this.of(client, id)));
    return new Map(ids.map((id, i) => [id, names[i]]));
  }
}

async function lookUp(client: WebClient, userId: string): Promise<string> {
  try {
    const { user } = await client.users.info({ user: userId });
    const profile = user?.profile;
    return profile?.display_name || profile?.real_name || user?.real_name || user?.name || userId;
  } catch {
    return userId;
  }
}

const perProcess = new WeakMap<object, UserNames>();

/** The one name cache of a runtime (listeners share it; a new runtime starts empty). */
export function userNamesOf(owner: object): UserNames {
  let names = perProcess.get(owner);
  if (!names) {
    names = new UserNames();
    perProcess.set(owner, names);
  }
  return names;
}
