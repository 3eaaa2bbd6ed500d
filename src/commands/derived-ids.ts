import { nameToId, repoNameToId, unsafePathSegment } from '../db/ids';
import { codePointName, firstHiddenCharacter } from '../util/hidden-characters';
import { CommandError } from './catalog';

/**
 * Ids made from names (projects, workspaces, repos, agents, hooks, automations), each checked
 * here before it is stored: an id is typed into commands, shown in Slack and, for some, a folder.
 */

/** Why `id` would mislead whoever reads it (a sentence), or null. */
function hiddenCharacterProblem(id: string, what: string): string | null {
  const hidden = firstHiddenCharacter(id);
  if (hidden === null) return null;
  return `${what} ${JSON.stringify(id)} holds the invisible character ${codePointName(hidden)}, which would make it read as something else; remove it from the name.`;
}

function checked(id: string, what: string, folder: boolean): string {
  const problem = hiddenCharacterProblem(id, what) ?? (folder ? unsafePathSegment(id, what) : null);
  if (problem) throw new CommandError(problem);
  return id;
}

/** The id of a project, agent, hook or automation (lowercased, spaces as hyphens); `folder` when it also names a folder. */
export function idFromName(name: string, what: string, options: { folder: boolean }): string {
  return checked(nameToId(name), what, options.folder);
}

/** A repo's id: its name lowercased. It names the repo's folder. */
export function repoIdFromName(name: string): string {
  return checked(repoNameToId(name), 'Repo name', true);
}
