import { ChatThread, SystemState } from '../entities';
import type { EmFactory } from '../database';

export interface StoredConversation {
  summary: string | null;
  turns: unknown[];
}

/** One person's rating of one reply. */
export interface ChatFeedback {
  user_id: string;
  rating: 'good' | 'bad';
  /** The rated reply. */
  message_ts: string | null;
  at: string;
}

/**
 * Pending chat confirmations live in `system_state` under this prefix: one small row each, so a
 * restart keeps them and any process can take one.
 */
const PENDING_PREFIX = 'chat_confirmation:';

export class ChatThreadRepository {
  constructor(private readonly em: EmFactory) {}

  async load(id: string): Promise<StoredConversation> {
    const row = await this.em().findOne(ChatThread, { id });
    return { summary: row?.summary ?? null, turns: row?.turns ?? [] };
  }

  async save(id: string, conversation: StoredConversation): Promise<void> {
    await this.em().upsert(ChatThread, { id, summary: conversation.summary, turns: conversation.turns, updatedAt: new Date() });
  }

  /** Adds a person's rating of a reply to its conversation; a person rating the same reply again replaces their rating. */
  async addFeedback(id: string, entry: ChatFeedback): Promise<void> {
    const em = this.em();
    const row = await em.findOne(ChatThread, { id });
    const kept = (row?.feedback ?? []).filter((f) => {
      const old = f as Partial<ChatFeedback>;
      return !(old.user_id === entry.user_id && old.message_ts === entry.message_ts);
    });
    if (row) {
      row.feedback = [...kept, entry];
      await em.flush();
    } else {
      await em.upsert(ChatThread, { id, summary: null, turns: [], feedback: [entry], updatedAt: new Date() });
    }
  }

  async feedback(id: string): Promise<ChatFeedback[]> {
    const row = await this.em().findOne(ChatThread, { id });
    return (row?.feedback ?? []) as ChatFeedback[];
  }

  async savePending(id: string, value: unknown): Promise<void> {
    await this.em().upsert(SystemState, { key: PENDING_PREFIX + id, value, updatedAt: new Date() });
  }

  /** Reads a pending confirmation without taking it (to check who may confirm it first). */
  async peekPending<T>(id: string): Promise<T | null> {
    const row = await this.em().findOne(SystemState, { key: PENDING_PREFIX + id });
    return row ? (row.value as T) : null;
  }

  /**
   * Reads and removes a pending confirmation. The delete decides the winner, so two clicks on
   * the same Confirm button (or two processes) never both get it.
   */
  async takePending<T>(id: string): Promise<T | null> {
    const key = PENDING_PREFIX + id;
    const row = await this.em().findOne(SystemState, { key });
    if (!row) return null;
    const deleted = await this.em().nativeDelete(SystemState, { key });
    return deleted === 1 ? (row.value as T) : null;
  }
}
