/** get_task's / get_merge_queue's `pr_checks` in a few words; null when absent. */
export function prChecksWords(value: unknown): string | null {
  if (!value || typeof value !== 'object') return null;
  const v = value as Record<string, unknown>;
  const [passing, failing, pending] = [v.passing, v.failing, v.pending].map((n) => Math.max(0, Number(n) || 0));
  const total = passing + failing + pending;
  const rest = (parts: Array<[number, string]>) => {
    const shown = parts.filter(([n]) => n > 0).map(([n, word]) => `${n} ${word}`);
    return shown.length ? ` (${shown.join(', ')})` : '';
  };
  if (failing > 0)
    return `❌ checks failing: ${failing} of ${total}${rest([
      [passing, 'passing'],
      [pending, 'running'],
    ])}`;
  if (pending > 0) return `⏳ checks running: ${pending} of ${total}${rest([[passing, 'passing']])}`;
  if (passing > 0) return `✅ checks passing (${passing})`;
  return 'no checks reported';
}
