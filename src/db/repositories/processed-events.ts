import type { EmFactory } from '../database';

/** Slack event ids already handled, so a retried delivery is processed once. */
export class ProcessedEventRepository {
  constructor(private readonly em: EmFactory) {}

  /** Records the id; false when it was already recorded (a duplicate delivery). */
  async claim(eventId: string): Promise<boolean> {
    // Raw inserts report no affected rows through this driver; RETURNING yields a row only when it inserted.
    const rows = await this.em().execute<Array<{ event_id: string }>>(
      'insert into processed_slack_events (event_id, received_at) values (?, ?) on conflict do nothing returning event_id',
      [eventId, new Date()],
    );
    return rows.length > 0;
  }
}
