import type { AgentProfile } from './profiles';

/** The backends an agent runs on: Claude Code through its SDK, or an ACP agent from a profile. */
export const AGENT_BACKENDS = ['claude-code', 'acp'] as const;
export type AgentBackend = (typeof AGENT_BACKENDS)[number];

/**
 * What a project or task names: `claude-code`, `acp` (any ACP profile) or `acp:<profile>`. An
 * agent's own key is `claude-code` or `acp:<profile>`.
 */
export function agentBackendKey(agent: { backend: string; profile: string | null }): string {
  return agent.backend === 'acp' ? `acp:${agent.profile ?? ''}` : 'claude-code';
}

/** Whether an agent serves a backend a project or task names. */
export function servesBackend(agent: { backend: string; profile: string | null }, wanted: string): boolean {
  return backendKeyServes(agentBackendKey(agent), wanted);
}

/** The same, from the agent's key (agentBackendKey). */
export function backendKeyServes(agentKey: string, wanted: string): boolean {
  return wanted === 'acp' ? agentKey.startsWith('acp:') : agentKey === wanted;
}

/** Why a backend name cannot be used (null when it can). */
export function backendProblem(name: string, profiles: readonly AgentProfile[]): string | null {
  if (name === 'claude-code' || name === 'acp') return null;
  const profile = /^acp:(.+)$/.exec(name)?.[1];
  if (profile === undefined) return `'${name}' is not a backend: use claude-code, acp (any ACP profile) or acp:<profile>.`;
  if (!profiles.some((p) => p.name === profile)) {
    return `No agent profile is named '${profile}': list_agent_profiles shows the configured ones.`;
  }
  return null;
}
