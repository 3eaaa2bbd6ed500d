/**
 * A command's answer with its error case ruled out: fails the test with the command's own error
 * sentence, so a typed result can be read without a cast.
 */
export function succeeded<R extends Record<string, unknown>>(outcome: R | { error: string }): R {
  if ('error' in outcome && typeof outcome.error === 'string') throw new Error(`The command failed: ${outcome.error}`);
  return outcome as R;
}
