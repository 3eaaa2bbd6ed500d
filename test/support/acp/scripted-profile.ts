import path from 'node:path';
import type { AgentProfile } from '../../../src/agents/profiles';

export const SCRIPTED_AGENT = path.join(__dirname, 'scripted-agent.mjs');

/** A profile that starts the scripted ACP agent with node, keeping its sessions in `stateDir`. */
export function scriptedProfile(stateDir: string, name = 'scripted', env: Record<string, string> = {}): AgentProfile {
  return {
    name,
    command: process.execPath,
    args: [SCRIPTED_AGENT],
    env: { ACP_SCRIPTED_STATE: stateDir, ...env },
    sandbox: true,
    writable: [stateDir],
  };
}
