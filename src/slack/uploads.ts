import type { WebClient } from '@slack/web-api';
import type { FileUpload } from './blocks/long';
import { errorMessage } from '../util/error-message';

function slackError(err: unknown): string {
  return (err as { data?: { error?: string } }).data?.error ?? errorMessage(err);
}

/**
 * Uploads what did not fit a message: to the channel it was asked in, else (the app is not in
 * that channel) to the person's DM with the app. Returns a sentence when it could not.
 */
export async function uploadFiles(
  client: WebClient,
  where: { channelId: string; userId: string },
  files: readonly FileUpload[],
): Promise<string | null> {
  for (const file of files) {
    const upload = (channel_id: string) =>
      client.files.uploadV2({ channel_id, filename: file.filename, title: file.title, content: file.content });
    try {
      await upload(where.channelId);
    } catch (first) {
      try {
        const dm = await client.conversations.open({ users: where.userId });
        if (!dm.channel?.id) throw first;
        await upload(dm.channel.id);
      } catch (err) {
        return `I could not attach ${file.filename} (${slackError(err)}); the message above shows the start of it.`;
      }
    }
  }
  return null;
}
