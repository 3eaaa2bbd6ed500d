import type { Actor, CommandContext } from './catalog';

/**
 * The admin rule (the handler applies it to commands marked `admin`): Slack and chat users must
 * be listed in AQ_ADMINS when it is set; local callers (CLI, hooks, the system) are trusted.
 * Commands whose risky use is only one variant (linking an outside folder) ask it here.
 */
export function actorIsAdmin(actor: Actor, admins: readonly string[]): boolean {
  if (actor.source !== 'slack' && actor.source !== 'chat') return true;
  if (admins.length === 0) return true;
  return actor.userId !== undefined && admins.includes(actor.userId);
}

/** Whether the actor of this command run is an admin. */
export function isAdminHere(ctx: Pick<CommandContext, 'actor' | 'config'>): boolean {
  return actorIsAdmin(ctx.actor, ctx.config.admins);
}
