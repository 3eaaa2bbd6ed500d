import type { CommandHandler } from '../../commands/handler';
import type { Database } from '../../db/database';
import { PlanCanvases } from '../rooms/plan-canvas';
import type { Rating } from './feedback';
import { type SlackFeatures, slackFeaturesFor } from './features';

/** What Slack's AI surfaces need from the process (the Runtime has it). */
export interface AiSurfaceSource {
  handler: Pick<CommandHandler, 'execute'>;
  db: Pick<Database, 'state' | 'taskThreads' | 'chatThreads'>;
}

/**
 * The listeners' way to Slack's AI surfaces: which the workspace offers, feedback on chat
 * replies, the task behind a thread (for Slack's Stop), and the replies being written.
 */
export interface AiSurfaces {
  features: SlackFeatures;
  /** Plans' canvases in task rooms: a person's edits read back, shown, applied. */
  planCanvases: PlanCanvases;
  /** Stores a rating with the conversation; nothing is posted. */
  recordFeedback(conversationId: string, userId: string, rating: Rating, messageTs: string | null): Promise<void>;
  /** The task whose thread starts at this message. */
  taskAtThread(channelId: string, threadTs: string): Promise<string | null>;
  /** True before the conversation's first turn is stored. */
  isNewConversation(conversationId: string): Promise<boolean>;
  /** Chat replies being written, by `<channel>:<thread_ts>`, so Slack's Stop can cancel one. */
  readonly replies: Map<string, AbortController>;
  /** Counts a reply as under way until the returned function is called. */
  working(): () => void;
  /** Resolves once no reply is under way (at shutdown, before the database closes). */
  idle(): Promise<void>;
}

export function createAiSurfaces(source: AiSurfaceSource, log: (message: string) => void): AiSurfaces {
  let underWay = 0;
  let wake: (() => void) | null = null;
  let drained: Promise<void> | null = null;
  const features = slackFeaturesFor(source.db.state, log);
  return {
    features,
    planCanvases: new PlanCanvases(source, features, log),
    recordFeedback: (conversationId, userId, rating, messageTs) =>
      source.db.chatThreads.addFeedback(conversationId, { user_id: userId, rating, message_ts: messageTs, at: new Date().toISOString() }),
    taskAtThread: (channelId, threadTs) => source.db.taskThreads.taskFor(channelId, threadTs),
    isNewConversation: async (conversationId) => (await source.db.chatThreads.load(conversationId)).turns.length === 0,
    replies: new Map(),
    working() {
      underWay += 1;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        underWay -= 1;
        if (underWay === 0 && wake) {
          wake();
          wake = null;
          drained = null;
        }
      };
    },
    idle() {
      if (underWay === 0) return Promise.resolve();
      drained ??= new Promise<void>((resolve) => {
        wake = resolve;
      });
      return drained;
    },
  };
}
