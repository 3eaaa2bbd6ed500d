import { ChatThread } from '../entities';
import type { EmFactory } from '../database';

export interface StoredConversation {
  summary: string | null;
  turns: unknown[];
}

export class ChatThreadRepository {
  constructor(private readonly em: EmFactory) {}

  async load(id: string): Promise<StoredConversation> {
    const row = await this.em().findOne(ChatThread, { id });
    return { summary: row?.summary ?? null, turns: row?.turns ?? [] };
  }

  async save(id: string, conversation: StoredConversation): Promise<void> {
    await this.em().upsert(ChatThread, { id, summary: conversation.summary, turns: conversation.turns, updatedAt: new Date() });
  }
}
