import type { KnownBlock } from '@slack/types';
import type { HomeData } from '../home-data';
import { actionsBlock } from './actions';
import { button } from './common';
import { bold, mono, richLines, txt } from './text';
import { AUTOMATION_BUTTONS } from './action-ids';

/** Action ids of the section's buttons (their listener is listeners/actions/automation-buttons.ts). */

const KIND_ICON: Record<string, string> = { schedule: '⏰', webhook: '🪝', intake: '📥' };

/** Every automation in one place, each with a one-click Pause (or Resume). */
export function automationsSection(data: HomeData, cap: number): KnownBlock[] {
  const automations = data.automations;
  if (!automations) return [];
  const blocks: KnownBlock[] = [
    { type: 'divider' },
    {
      type: 'section',
      text: { type: 'mrkdwn', text: `*Automations* · ${automations.total}` },
      accessory: button('📥 Turn on channel intake', AUTOMATION_BUTTONS.addIntake, 'intake'),
    },
  ];
  for (const a of automations.rows.slice(0, cap)) {
    const state = a.enabled ? [] : [txt(' · paused'), ...(a.pausedReason ? [txt(`: ${a.pausedReason}`)] : [])];
    blocks.push(
      richLines([
        [txt(`${KIND_ICON[a.kind] ?? '⚙️'} `), bold(a.name), txt(' · '), mono(a.id), txt(` · ${a.kind} in `), mono(a.projectId), ...state],
      ]),
      actionsBlock([
        a.enabled ? button('Pause', AUTOMATION_BUTTONS.pause, a.id, 'danger') : button('Resume', AUTOMATION_BUTTONS.resume, a.id),
      ]),
    );
  }
  if (automations.total > cap) {
    blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `${automations.total - cap} more: \`/aq list_automations\`` }] });
  }
  return blocks;
}
