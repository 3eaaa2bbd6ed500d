import type { EmFactory } from '../database';
import { storedJson } from './column-values';
import { changes, runSql } from './run-sql';
import { SystemStateRepository } from './system-state';

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

/**
 * Chat conversations by thread, and pending confirmations. Plain statements: every message to
 * the bot loads and saves its conversation.
 */
export class ChatThreadRepository {
  /** Where pending confirmations are kept (PENDING_PREFIX). */
  private readonly state: SystemStateRepository;

  constructor(private readonly em: EmFactory) {
    this.state = new SystemStateRepository(em);
  }

  async load(id: string): Promise<StoredConversation> {
    const rows = await this.em().execute<Array<{ summary: string | null; turns: string | null }>>(
      'select summary, cast(turns as text) as turns from chat_threads where id = ?',
      [id],
    );
    return { summary: rows[0]?.summary ?? null, turns: (storedJson(rows[0]?.turns) as unknown[] | null) ?? [] };
  }

  async save(id: string, conversation: StoredConversation): Promise<void> {
    await runSql(
      this.em(),
      `insert into chat_threads (id, summary, turns, updated_at) values (?, ?, ?, ?)
        on conflict (id) do update set summary = excluded.summary, turns = excluded.turns, updated_at = excluded.updated_at`,
      [id, conversation.summary, JSON.stringify(conversation.turns), Date.now()],
    );
  }

  /** Adds a person's rating of a reply to its conversation; a person rating the same reply again replaces their rating. */
  async addFeedback(id: string, entry: ChatFeedback): Promise<void> {
    const kept = (await this.feedback(id)).filter((old) => !(old.user_id === entry.user_id && old.message_ts === entry.message_ts));
    await runSql(
      this.em(),
      `insert into chat_threads (id, summary, turns, feedback, updated_at) values (?, null, '[]', ?, ?)
        on conflict (id) do update set feedback = excluded.feedback, updated_at = excluded.updated_at`,
      [id, JSON.stringify([...kept, entry]), Date.now()],
    );
  }

  async feedback(id: string): Promise<ChatFeedback[]> {
    const rows = await this.em().execute<Array<{ feedback: string | null }>>(
      'select cast(feedback as text) as feedback from chat_threads where id = ?',
      [id],
    );
    return (storedJson(rows[0]?.feedback) as ChatFeedback[] | null) ?? [];
  }

  async savePending(id: string, value: unknown): Promise<void> {
    await this.state.set(PENDING_PREFIX + id, value);
  }

  /** Reads a pending confirmation without taking it (to check who may confirm it first). */
  async peekPending<T>(id: string): Promise<T | null> {
    return this.state.get<T | null>(PENDING_PREFIX + id, null);
  }

  /**
   * Reads and removes a pending confirmation. The delete decides the winner, so two clicks on
   * the same Confirm button (or two processes) never both get it.
   */
  async takePending<T>(id: string): Promise<T | null> {
    const key = PENDING_PREFIX + id;
    const found = await this.state.getMany<T>([key]);
    if (!found.has(key)) return null;
    const deleted = await changes(this.em(), 'delete from system_state where key = ?', [key]);
    return deleted === 1 ? (found.get(key) as T) : null;
  }
}
