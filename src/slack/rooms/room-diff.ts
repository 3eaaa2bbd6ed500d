import { summarizeDiff, type DiffSummary } from '../../git/diff-summary';
import { plural } from '../blocks/cards-format';

/** Slack's cap on a view's content (setView answers content_too_large past it). */
export const VIEW_CONTENT_BYTES = 1_000_000;

/**
 * The diff view's content: the diff as git printed it, or, past Slack's cap, its first whole
 * files with a note on top (text before the first `diff --git` is not part of any file) saying
 * it was cut and giving the totals of the whole diff (`wholeStats`, when the diff given is itself
 * only the start of one).
 */
export function diffViewContent(diff: string, taskId: string, wholeStats?: DiffSummary): string {
  if (Buffer.byteLength(diff) <= VIEW_CONTENT_BYTES) return diff;
  const whole = wholeStats ?? summarizeDiff(diff);
  const note =
    `Agent Queue: this diff is larger than Slack shows (1 MB) and was cut after the last whole file that fits. ` +
    `The whole diff: ${plural(whole.files.length, 'file')} changed, ${whole.insertions} insertions(+), ${whole.deletions} deletions(-). ` +
    `Run /aq get_task_diff task_id=${taskId} for all of it.\n\n`;
  const budget = VIEW_CONTENT_BYTES - Buffer.byteLength(note);
  const files = diff.split(/(?=^diff --git )/m);
  let kept = '';
  for (const file of files) {
    if (Buffer.byteLength(kept) + Buffer.byteLength(file) > budget) break;
    kept += file;
  }
  // A single file larger than the cap: its first lines that fit.
  if (!kept)
    kept = Buffer.from(files[0] ?? '')
      .subarray(0, budget)
      .toString('utf8')
      .replace(/[^\n]*$/, '');
  return note + kept;
}
