import type { PlanStep } from './parser';

/** A step of a plan as it stands: the task that carries it. */
export interface CurrentStep {
  id: string;
  title: string;
}

/** How a revised plan differs from the steps that stand, in the revised plan's order. */
export interface StepChanges {
  /** Steps the revised plan adds, with their place in it (1 is the first). */
  added: Array<{ title: string; position: number }>;
  /** Steps it no longer has. */
  removed: Array<{ id: string; title: string }>;
  /** Steps kept in their place with another title. */
  changed: Array<{ id: string; from: string; to: string }>;
}

/** Each step of the revised plan: the standing step it keeps (by task id) or null for a new one. */
export interface RevisedStep {
  id: string | null;
  step: PlanStep;
}

const same = (a: string, b: string) => a.trim() === b.trim();

/**
 * The steps of `next` matched to the `current` ones: titles the two share in the same order
 * (their longest common subsequence) are kept; between two kept steps, standing and new steps
 * pair up in order as renamed, and what is left over is removed or added.
 */
export function diffSteps(current: readonly CurrentStep[], next: readonly PlanStep[]): { changes: StepChanges; order: RevisedStep[] } {
  const n = current.length;
  const m = next.length;
  const lcs = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i][j] = same(current[i].title, next[j].title) ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const anchors: Array<[number, number]> = [];
  for (let i = 0, j = 0; i < n && j < m; ) {
    if (same(current[i].title, next[j].title)) {
      anchors.push([i, j]);
      i++;
      j++;
    } else if (lcs[i + 1][j] >= lcs[i][j + 1]) i++;
    else j++;
  }
  anchors.push([n, m]);

  const changes: StepChanges = { added: [], removed: [], changed: [] };
  const order: RevisedStep[] = [];
  let i = 0;
  let j = 0;
  for (const [ai, aj] of anchors) {
    const paired = Math.min(ai - i, aj - j);
    for (let k = 0; k < paired; k++) {
      const was = current[i + k];
      const now = next[j + k];
      changes.changed.push({ id: was.id, from: was.title, to: now.title });
      order.push({ id: was.id, step: now });
    }
    for (let k = i + paired; k < ai; k++) changes.removed.push({ id: current[k].id, title: current[k].title });
    for (let k = j + paired; k < aj; k++) {
      changes.added.push({ title: next[k].title, position: k + 1 });
      order.push({ id: null, step: next[k] });
    }
    if (ai < n && aj < m) order.push({ id: current[ai].id, step: next[aj] });
    i = ai + 1;
    j = aj + 1;
  }
  return { changes, order };
}

/** True when the revised plan changes nothing. */
export function noChanges(changes: StepChanges): boolean {
  return changes.added.length === 0 && changes.removed.length === 0 && changes.changed.length === 0;
}
