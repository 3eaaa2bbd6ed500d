import type { KnownBlock } from '@slack/types';
import type { CanvasApply, StepChangesView } from '../rooms/plan-canvas';
import { actionsBlock } from './actions';
import { PLAN_CANVAS_BUTTONS } from './action-ids';
import { button, fallbackOf, LIMITS, type Rendered } from './common';
import { bold, mono, packRich, txt, type Line } from './text';

/** The room's note under the plan: where the canvas is, and the button that reads it back. */
export function canvasInvite(taskId: string): Rendered {
  return {
    text: fallbackOf('📝 The plan is in the Plan tab: edit it there before it is approved, then press Apply canvas edits.'),
    blocks: [
      packRich(
        [
          [
            txt('📝 The plan is in the '),
            bold('Plan'),
            txt(' tab: edit it there before it is approved, then press Apply canvas edits to see the changes before they apply.'),
          ],
        ],
        LIMITS.richText,
      )[0],
      actionsBlock([button('Apply canvas edits', PLAN_CANVAS_BUTTONS.check, taskId, 'primary')]),
    ],
  };
}

function changeLines(changes: StepChangesView): Line[] {
  return [
    ...changes.changed.map((c): Line => [txt('✏️ '), mono(c.id), txt(` ${c.from} → `), bold(c.to)]),
    ...changes.added.map((a): Line => [txt(`➕ New step ${a.position}: `), bold(a.title)]),
    ...changes.removed.map((r): Line => [txt('➖ Removed: '), mono(r.id), txt(` ${r.title}`)]),
  ];
}

function count(changes: StepChangesView): string {
  const n = changes.added.length + changes.removed.length + changes.changed.length;
  return `${n} change${n === 1 ? '' : 's'}`;
}

/** An approval held back by canvas edits: what they change, with Apply and Discard, and what to do next. */
export function approvalHeldMessage(edits: CanvasApply): Rendered {
  const shown = canvasEditsMessage(edits);
  const line = '✋ Not approved yet: the plan canvas has edits that are not applied. Apply or discard them, then approve again.';
  return { text: fallbackOf(line), blocks: [...packRich([[txt(line)]], LIMITS.richText), ...shown.blocks] };
}

/** What reading the canvas back found, said to the person who asked; edits come with Apply and Discard. */
export function canvasEditsMessage(result: CanvasApply): Rendered {
  const say = (line: string): Rendered => ({ text: fallbackOf(line), blocks: packRich([[txt(line)]], LIMITS.richText) });
  switch (result.kind) {
    case 'none':
      return say('This plan has no canvas (its task has no room, or the workspace has no canvases): revise it with /aq revise_plan.');
    case 'unchanged':
      return say('The plan canvas has no edits to apply: it shows the plan as it is.');
    case 'rejected':
      return say(`⚠️ The canvas's plan was not applied, and nothing changed: ${result.reason}`);
    case 'stale':
      return canvasEditsMessage(
        result.edits.kind === 'edits' ? result.edits : { kind: 'rejected', reason: 'The canvas changed again; read it once more.' },
      );
    case 'applied':
      return {
        text: fallbackOf(`✅ Applied the canvas's ${count(result.changes)} to the plan.`),
        blocks: packRich(
          [[txt(`✅ Applied the canvas's ${count(result.changes)} to the plan:`)], ...changeLines(result.changes)],
          LIMITS.richText,
        ),
      };
    case 'edits': {
      const blocks: KnownBlock[] = [
        ...packRich([[txt(`📝 The canvas changes the plan (${count(result.changes)}):`)], ...changeLines(result.changes)], LIMITS.richText),
        actionsBlock([
          button('Apply these changes', PLAN_CANVAS_BUTTONS.apply, `${result.taskId} ${result.hash}`, 'primary'),
          button('Discard the edits', PLAN_CANVAS_BUTTONS.discard, result.taskId),
        ]),
      ];
      return { text: fallbackOf(`📝 The plan canvas has ${count(result.changes)}: apply them?`), blocks };
    }
  }
}
