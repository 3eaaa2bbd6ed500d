import type { AgentRequests } from './agent-requests';
import type { AgentInbox } from './streaming-input';

/**
 * A coding agent the orchestrator can run in a workspace. One `run` is one attempt at a task;
 * it never throws for the agent's own failures — those come back as an outcome.
 */

export interface AgentUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
}

export function totalAgentTokens(u: AgentUsage | null): number {
  if (!u) return 0;
  return u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheCreationTokens;
}

export const ZERO_USAGE: AgentUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 };

export interface AgentRunRequest {
  taskId: string;
  prompt: string;
  /** The locked workspace, checked out on the task's branch. */
  cwd: string;
  /** Aborted when the task is stopped or the daemon shuts down. */
  signal: AbortSignal;
  /** Short human-readable lines as the agent works (text, tool calls). */
  onProgress?: (line: string) => void;
  /** Continue this agent session (a follow-up run) instead of starting a new one. */
  resumeSessionId?: string | null;
  /** With `resumeSessionId`: the whole prompt for an agent that cannot load its earlier session. */
  freshPrompt?: string;
  /** The agent's ACP profile (`agents.profile`), for backends that start a configured command. */
  profile?: string | null;
  /** Messages people send while the run lasts, given to the agent as new user messages. */
  inbox?: AgentInbox;
  /** The project's tool policy, and people to ask about what it does not allow. */
  agentRequests?: AgentRequests;
}

export type AgentRunStatus = 'completed' | 'failed' | 'rate_limited' | 'aborted';

export interface AgentRunOutcome {
  status: AgentRunStatus;
  /** The agent's final answer (empty when it produced none). */
  summary: string;
  errorMessage: string | null;
  /** Null when the agent did not report its token usage: unknown, never guessed. */
  usage: AgentUsage | null;
  /** Null when the agent did not report a cost in USD. */
  costUsd: number | null;
  sessionId: string | null;
  /** For rate_limited: when the limit resets, if the agent said so. */
  resetsAt: Date | null;
}

export interface AgentAdapter {
  /** The agent type this adapter serves (`agents.type`). */
  readonly type: string;
  run(request: AgentRunRequest): Promise<AgentRunOutcome>;
}
