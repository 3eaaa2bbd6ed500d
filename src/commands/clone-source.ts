import { readCloneSource, redactCredentials } from '../git/clone-url';
import { isAdminHere } from './admin-check';
import { CommandError, type CommandContext } from './catalog';
import { isWithin, linkTargetCheck, resolveReal } from './path-validation';

const ADMINS_ONLY =
  'Cloning from a folder of this host copies it into a workspace where agents and file commands read it, so, like linking (source=link), it is for admins (AQ_ADMINS). Use an https or ssh URL (https://host/org/repo.git, git@host:org/repo.git), or ask an admin.';

/**
 * What a command may clone, judged before git sees it (add_repo and add_workspace): https, ssh
 * and scp-like remotes for everyone; a folder of this host (a path or file://) as linking is
 * judged — inside the workspace folder for everyone, elsewhere for admins and never a system or
 * credential folder; any other transport for admins. Answers what to hand git: for a folder its
 * real absolute path, so a relative path means the same wherever git runs.
 */
export async function allowedCloneSource(ctx: CommandContext, given: string): Promise<string> {
  const source = readCloneSource(given);
  if (source.kind === 'refused') throw new CommandError(source.reason);
  if (source.kind === 'remote') return source.url;
  const admin = isAdminHere(ctx);
  if (source.kind === 'other') {
    if (admin) return source.url;
    throw new CommandError(`${source.scheme}:// is not one of the transports anyone may clone from (https, ssh). ${ADMINS_ONLY}`);
  }
  const real = await resolveReal(source.path);
  if (!admin && !isWithin(real, await resolveReal(ctx.config.workspaceDir))) {
    throw new CommandError(`Cannot clone ${redactCredentials(given)}: it is a folder of this host. ${ADMINS_ONLY}`);
  }
  return linkTargetCheck(ctx.config, real, admin);
}
