import { PortableMigration } from './portable-migration';

/*
 * Thumbs up / down people give a chat reply, kept with the conversation they rate (a list of
 * {user_id, rating, message_ts, at}); read by people who tune the assistant, never posted.
 */
export class Migration20261123072500 extends PortableMigration {
  override async up(): Promise<void> {
    this.addSql('alter table `chat_threads` add column `feedback` json null;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table `chat_threads` drop column `feedback`;');
  }
}
