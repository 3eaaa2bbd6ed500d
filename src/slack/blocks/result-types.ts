import type { ResultOf } from '../../commands/catalog';
import type { CommandName, CommandNamed } from '../../commands/index';

/**
 * The success result of the command called `N`, as its `run` declares it: a card typed on it
 * stops compiling when the command renames or drops a key the card reads.
 */
export type Result<N extends CommandName> = ResultOf<CommandNamed<N>>;

/** One of several commands' results, tagged with the command's name so a `switch` on it narrows the result. */
export type Tagged<N extends CommandName> = { [K in N]: { command: K; result: Result<K> } }[N];

type KeysOfAny<T> = T extends unknown ? keyof T : never;
type ValueIn<T, K extends PropertyKey> = T extends unknown ? (K extends keyof T ? T[K] : never) : never;

/**
 * A result that comes in several shapes (e.g. per task or per project) read as one: every key of
 * any shape, each optional. A key no shape has still fails the type check.
 */
export type AnyShape<T> = { [K in KeysOfAny<T>]?: ValueIn<T, K> };
