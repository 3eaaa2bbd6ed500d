import { DateTimeType, Entity, Opt, PrimaryKey, Property } from '@mikro-orm/core';

/** Slack event ids already handled, so retried deliveries are dropped. */
@Entity({ tableName: 'processed_slack_events' })
export class ProcessedSlackEvent {
  @PrimaryKey({ type: 'string' })
  eventId!: string;

  @Property({ type: DateTimeType })
  receivedAt: Date & Opt = new Date();
}
