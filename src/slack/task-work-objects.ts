import type { EntityMetadata, MessageMetadata } from '@slack/types';
import type { ChatPostMessageArguments, ChatPostMessageResponse, ChatUpdateArguments, WebClient } from '@slack/web-api';
import { FALLBACK_ERRORS, slackErrorCode, type SlackFeatures } from './ai-surfaces/features';

/**
 * Slack's answers that mean it will not take our Work Object: the workspace's refusals, and
 * `invalid_metadata` (an error) or `invalid_metadata_format` (a warning on a message posted
 * without it), which a Slack change to the entity schema would bring.
 */
const REFUSALS = new Set([...FALLBACK_ERRORS, 'invalid_metadata', 'invalid_metadata_format']);

/**
 * Posts and redraws a task's card with its Work Object (`metadata.entities`) where the workspace
 * takes one (the work_objects feature); after a refusal, noticed once, cards go without it and
 * everything else is as before.
 */
export class TaskWorkObjects {
  constructor(
    private readonly client: WebClient,
    private readonly features: SlackFeatures,
  ) {}

  async post(args: ChatPostMessageArguments, entity: EntityMetadata | null): Promise<ChatPostMessageResponse> {
    if (!entity || !(await this.features.usable('work_objects'))) return this.client.chat.postMessage(args);
    try {
      const posted = await this.client.chat.postMessage({ ...args, metadata: { entities: [entity] } });
      await this.accepted('chat.postMessage', posted.warning);
      return posted;
    } catch (err) {
      await this.refused('chat.postMessage', err);
      return this.client.chat.postMessage(args);
    }
  }

  async update(args: ChatUpdateArguments, entity: EntityMetadata | null): Promise<void> {
    if (!entity || !(await this.features.usable('work_objects'))) {
      await this.client.chat.update(args);
      return;
    }
    try {
      // chat.update takes the metadata chat.postMessage does; @slack/web-api 8.2 types only the event kind.
      const metadata = { entities: [entity] } as unknown as MessageMetadata;
      const updated = await this.client.chat.update({ ...args, metadata });
      await this.accepted('chat.update', updated.warning);
    } catch (err) {
      await this.refused('chat.update', err);
      await this.client.chat.update(args);
    }
  }

  private async accepted(method: string, warning: string | undefined): Promise<void> {
    const refusal = warning?.split(',').find((w) => REFUSALS.has(w));
    if (refusal) await this.features.fallBack('work_objects', method, refusal);
    else await this.features.confirmNative('work_objects');
  }

  /** Records a refusal; any other error is the caller's. */
  private async refused(method: string, err: unknown): Promise<void> {
    const code = slackErrorCode(err);
    if (!code || !REFUSALS.has(code)) throw err;
    await this.features.fallBack('work_objects', method, code);
  }
}
