import { DateTimeType, Entity, Opt, PrimaryKey, Property } from '@mikro-orm/core';

/** Persisted memory of one chat conversation (a Slack thread, a DM, or a CLI session). */
@Entity({ tableName: 'chat_threads' })
export class ChatThread {
  /** `<channel>:<thread_ts>` for Slack. */
  @PrimaryKey({ type: 'string' })
  id!: string;

  /** Summary of the turns that were dropped from `turns`. */
  @Property({ type: 'text', nullable: true })
  summary?: string | null;

  /** Recent model messages ({role, content}) in Anthropic's shape. */
  @Property({ type: 'json' })
  turns: unknown[] & Opt = [];

  /** Ratings people gave the replies ({user_id, rating, message_ts, at}); never shown in Slack. */
  @Property({ type: 'json', nullable: true })
  feedback?: unknown[] | null;

  @Property({ type: DateTimeType, onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();
}
