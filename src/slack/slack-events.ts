import type { Database } from '../db/database';

/** What dropping duplicate deliveries needs from the process (the Runtime has it). */
export interface DeliverySource {
  db: Pick<Database, 'processedEvents'>;
}

/**
 * True the first time an Events API delivery is seen. Slack redelivers an event whose ack was
 * late (x-slack-retry-num); the id is stored, so a redelivery after a restart is dropped too.
 */
export async function firstDelivery(source: DeliverySource, eventId: string | undefined): Promise<boolean> {
  if (!eventId) return true;
  return source.db.processedEvents.claim(eventId);
}
