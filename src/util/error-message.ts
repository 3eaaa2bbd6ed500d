/** What went wrong, as a line for a log or a person: an Error's message (its name when it has none), or the value as text. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message || err.name : String(err);
}
