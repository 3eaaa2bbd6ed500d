/**
 * An agent's backend key in SQL, as agentBackendKey (src/agents/backends.ts) makes it:
 * `claude-code`, or `acp:<profile>`.
 */
export function backendKeySql(alias: string): string {
  return `case when ${alias}.backend = 'acp' then 'acp:' || coalesce(${alias}.profile, '') else 'claude-code' end`;
}

/** A task's backend in SQL; tasks from before backends existed ran on Claude Code. */
export function taskBackendSql(alias: string): string {
  return `coalesce(${alias}.backend, 'claude-code')`;
}
