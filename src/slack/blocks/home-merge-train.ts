import type { KnownBlock } from '@slack/types';
import type { HomeData } from '../home-data';
import { actionsBlock } from './actions';
import { trainButtons, trainLine } from './cards-merge-train';
import { richLines } from './text';

/** The merge trains on the Home (only while tasks wait to land): place, state, and the admins' buttons. */
export function mergeTrainSection(data: HomeData): KnownBlock[] {
  const train = data.mergeTrain;
  if (!train || train.rows.length === 0) return [];
  const blocks: KnownBlock[] = [
    { type: 'divider' },
    { type: 'section', text: { type: 'mrkdwn', text: `*Merge train* · ${train.total} waiting to land, one at a time per repository` } },
    richLines(train.rows.map(trainLine)),
  ];
  const buttons = trainButtons(train.rows);
  if (buttons.length) blocks.push(actionsBlock(buttons));
  if (train.total > train.rows.length) {
    blocks.push({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: `${train.total - train.rows.length} more: \`/aq get_merge_queue project_id=…\`` }],
    });
  }
  return blocks;
}
