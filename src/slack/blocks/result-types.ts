import type { ResultOf } from '../../commands/catalog';
import type { CommandName, CommandNamed } from '../../commands/index';

/**
 * The success result of the command called `N`, as its `run` declares it: a card typed on it
 * stops compiling when the command renames or drops a key the card reads.
 */
export type Result<N extends CommandName> = ResultOf<CommandNamed<N>>;

type KeysOfAny<T> = T extends unknown ? keyof T : never;
type ValueIn<T, K extends PropertyKey> = T extends unknown ? (K extends keyof T ? T[K] : never) : never;

/**
 * A result of one command that comes in several shapes (e.g. per task or per project) read as
 * one: every key of any shape, each optional. A key no shape has still fails the type check. For
 * several commands' results, CommandAndResult.
 */
export type AnyShape<T> = { [K in KeysOfAny<T>]?: ValueIn<T, K> };

/**
 * A command's name and its result, as the parameters of a card that draws several commands'
 * results (`...[command, r]: CommandAndResult<N>`): a `switch` or `if` on the name narrows the
 * result to that command's own type, so each branch reads only its command's keys.
 */
export type CommandAndResult<N extends CommandName> = { [K in N]: [command: K, result: Result<K>] }[N];
