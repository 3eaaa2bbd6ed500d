import { AnthropicChatProvider } from '../../../src/chat/anthropic';
import { createChatService, type ChatRequest, type ChatService, type ChatServiceDeps } from '../../../src/chat/service';
import type { Actor } from '../../../src/commands/catalog';
import { FakeAnthropic } from '../../support/fake-anthropic';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

export const MODEL = 'fake-model-1';
export const actor: Actor = { source: 'chat', userId: 'U1', channelId: 'C1' };

export interface ChatHarness {
  fake: FakeAnthropic;
  rt: TestRuntime;
  provider: AnthropicChatProvider;
  chat: ChatService;
  /** A new service over the same database, as after a restart of the process. */
  restart(overrides?: Partial<ChatServiceDeps>): ChatService;
  ask(text: string, extra?: Partial<ChatRequest>): ReturnType<ChatService['reply']>;
  cleanup(): Promise<void>;
}

/**
 * The real Anthropic SDK (one retry) against the loopback fake, a real runtime on a fresh SQLite
 * file with project `demo`, and the chat service the runtime wires as `runtime.chat`.
 */
export async function chatHarness(env: Record<string, string> = {}): Promise<ChatHarness> {
  const fake = await FakeAnthropic.start();
  const provider = new AnthropicChatProvider({ apiKey: 'sk-fake', baseUrl: fake.url, model: MODEL, maxRetries: 1 });
  const rt = await makeTestRuntime(
    { ANTHROPIC_API_KEY: 'sk-fake', ANTHROPIC_BASE_URL: fake.url, AQ_CHAT_MODEL: MODEL, ...env },
    { chatProvider: provider },
  );
  await rt.exec('create_project', { name: 'demo' });
  const restart = (overrides: Partial<ChatServiceDeps> = {}) =>
    createChatService({ db: rt.db, config: rt.config, provider, createHandler: () => rt.createHandler(), ...overrides });
  const harness: ChatHarness = {
    fake,
    rt,
    provider,
    chat: rt.chat!,
    restart,
    ask: (text, extra = {}) => harness.chat.reply({ conversationId: 'C1:1', text, actor, projectId: 'demo', ...extra }),
    async cleanup() {
      await rt.cleanup();
      await fake.close();
    },
  };
  return harness;
}

/** The text of the system prompt a recorded request carried. */
export function systemText(body: Record<string, unknown>): string {
  const system = body.system;
  return typeof system === 'string' ? system : ((system as Array<{ text: string }> | undefined) ?? []).map((b) => b.text).join('\n');
}
