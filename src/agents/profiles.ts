import { readFileSync } from 'node:fs';
import { z } from 'zod';

/**
 * An ACP agent the app may start: the command line that speaks the Agent Client Protocol on
 * stdio (`codex-acp`, `gemini --acp`, `copilot --acp --stdio`, `opencode acp`), the environment
 * it needs on top of the safe one (its own API key, its config folder), and its sandbox.
 */
export interface AgentProfile {
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  /** Run the agent inside bubblewrap (the default), writable only in its workspace and `writable`. */
  sandbox: boolean;
  /** Folders (or files) the agent keeps its own state in (its login, sessions), writable inside the sandbox. */
  writable: string[];
}

const profileSchema = z.object({
  name: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, 'a profile name is 1 to 40 lowercase letters, digits, - or _'),
  command: z.string().min(1, 'a profile needs the command that starts its agent'),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
  sandbox: z.boolean().default(true),
  writable: z.array(z.string()).default([]),
});

const fileSchema = z.object({ profiles: z.array(profileSchema) });

/** Why the profiles file cannot be used, as one sentence for the person who wrote it. */
export class AgentProfilesError extends Error {}

/** The profiles in the JSON file `{"profiles": [...]}`; names are unique. */
export function parseAgentProfiles(text: string, source: string): AgentProfile[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new AgentProfilesError(`${source} is not valid JSON: write {"profiles": [{"name": "codex", "command": "codex-acp"}]}.`);
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
    throw new AgentProfilesError(`${source} has a problem${where}: ${issue?.message ?? 'it is not a list of profiles'}.`);
  }
  const seen = new Set<string>();
  for (const profile of parsed.data.profiles) {
    if (seen.has(profile.name))
      throw new AgentProfilesError(`${source} names the profile '${profile.name}' twice; give each a name of its own.`);
    seen.add(profile.name);
  }
  return parsed.data.profiles;
}

export function loadAgentProfiles(file: string): AgentProfile[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new AgentProfilesError(`AQ_AGENT_PROFILES names ${file}, which cannot be read: check the path and its permissions.`);
  }
  return parseAgentProfiles(text, file);
}
