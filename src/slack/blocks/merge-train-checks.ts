import type { Result } from './result-types';

/** A PR/MR's checks as get_task and get_merge_queue give them. */
type PrChecks = NonNullable<Result<'get_task'>['pr_checks']>;

/** get_task's / get_merge_queue's `pr_checks` in a few words; null when absent. */
export function prChecksWords(checks: PrChecks | undefined): string | null {
  if (!checks) return null;
  const { passing, failing, pending } = checks;
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
