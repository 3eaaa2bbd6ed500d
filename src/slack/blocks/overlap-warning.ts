import type { OverlapPayload, OverlapSide } from '../../orchestrator/conflict-radar';
import { fallbackOf, type Rendered } from './common';
import { type Mrkdwn, md, mdCode, mdJoin } from './text';

/** Files named in a warning; the rest are counted ("and N more"). */
export const OVERLAP_FILES_SHOWN = 8;

/** The files, as code, cut to a sane number. */
function fileList(files: string[]): Mrkdwn {
  const shown = files.slice(0, OVERLAP_FILES_SHOWN).map((f) => mdCode(f));
  const more = files.length - shown.length;
  return more > 0 ? md`${mdJoin(shown, ', ')} and ${more} more` : mdJoin(shown, ', ');
}

/** "Agent 1 on build-02", "Agent 1", or "no agent yet". */
function runner(side: OverlapSide): Mrkdwn {
  if (!side.agent) return md`no agent yet`;
  return side.host ? md`${side.agent} on ${side.host}` : md`${side.agent}`;
}

/** How the other task is named: its title, and its id as a link to its thread when there is one. */
function named(other: OverlapSide, link: string | null): Mrkdwn {
  // Only text we wrote goes in a link's label: the title stays outside it.
  return link ? md`*${other.title}* (<${link}|task ${other.id}>)` : md`*${other.title}* (${mdCode(other.id)})`;
}

/** The warning in one task's thread: the other task, the shared files and who runs each. */
export function overlapWarning(payload: OverlapPayload, mine: number, otherLink: string | null): Rendered {
  const me = payload.tasks[mine];
  const other = payload.tasks[1 - mine];
  const count = payload.files.length;
  const text = md`⚠️ *Possible conflict:* ${named(other, otherLink)} also touches ${count === 1 ? 'this file' : `these ${count} files`}: ${fileList(payload.files)}.`;
  const who = md`This task: ${runner(me)} · the other: ${runner(other)}. Whichever lands second may need to resolve the overlap.`;
  return {
    text: fallbackOf(`⚠️ Possible conflict with task ${other.id} (${other.title}): ${count} shared file(s).`),
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: text.text } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: who.text }] },
    ],
  };
}

/** The same message once the overlap ended. */
export function overlapCleared(payload: OverlapPayload, mine: number, otherLink: string | null): Rendered {
  const other = payload.tasks[1 - mine];
  const text = md`✅ ~Possible conflict~ cleared: this task and ${named(other, otherLink)} no longer touch the same files.`;
  return {
    text: fallbackOf(`✅ Possible conflict with task ${other.id} cleared.`),
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text: text.text } }],
  };
}
