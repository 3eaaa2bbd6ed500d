import type { CommandHandler } from '../commands/handler';
import type { HookModelRunner } from '../orchestrator/hooks';
import { runAgentTurn } from './agent';
import type { ChatProvider } from '../model/provider';
import { totalTokens } from '../model/provider';
import { buildSystemPrompt } from './system-prompt';
import { toolDefinitions } from './tools';

/**
 * A hook's prompt goes through the same tool-use loop as chat, statelessly and as the hook, so
 * the model reaches commands through the catalog. Tokens are the sum of every call it made.
 */
export function createHookModelRunner(deps: {
  provider: ChatProvider;
  createHandler: () => CommandHandler;
  workspaceDir: string;
}): HookModelRunner {
  return async ({ hook, prompt }) => {
    const handler = deps.createHandler();
    handler.activeProjectId = hook.projectId;
    const result = await runAgentTurn({
      provider: deps.provider,
      handler,
      actor: { source: 'hook' },
      system: `${buildSystemPrompt({ projectId: hook.projectId, workspaceDir: deps.workspaceDir })}\n\nYou are running the automated hook "${hook.name}". No person is reading along: act, then report what you found and did.`,
      tools: toolDefinitions(handler.commands),
      messages: [{ role: 'user', content: prompt }],
    });
    if (result.failed) throw new Error(result.text);
    return { text: result.text, tokensUsed: result.usage.reduce((sum, u) => sum + totalTokens(u), 0) };
  };
}
