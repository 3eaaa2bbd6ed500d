import { actionMatcher, actionsBlock, uniqueBlockIds } from '../../../src/slack/blocks/actions';
import { button, section } from '../../../src/slack/blocks/common';

const ids = (block: { elements: Array<{ action_id?: string }> }) => block.elements.map((e) => e.action_id);

describe('action ids unique by construction', () => {
  it('an actions block gives a repeated action id a suffix, and keeps distinct ids as they are', () => {
    const block = actionsBlock([
      button('One', 'aq_x', '1'),
      button('Two', 'aq_y', '2'),
      button('Three', 'aq_x', '3'),
      button('Four', 'aq_x', '4'),
    ]);
    expect(ids(block)).toEqual(['aq_x', 'aq_y', 'aq_x~2', 'aq_x~3']);
    expect(block.elements.map((e) => ('value' in e ? e.value : null))).toEqual(['1', '2', '3', '4']);
  });

  it('stays within 255 characters when the id is already that long', () => {
    const long = 'a'.repeat(300);
    const block = actionsBlock([button('One', long, '1'), button('Two', long, '2')]);
    const [first, second] = ids(block) as string[];
    expect(first).toHaveLength(255);
    expect(second).toHaveLength(255);
    expect(second.endsWith('~2')).toBe(true);
  });

  it('a listener matcher accepts the id and its suffixed forms, nothing else', () => {
    const matcher = actionMatcher('aq_help_page');
    expect(['aq_help_page', 'aq_help_page~2', 'aq_help_page~12'].every((id) => matcher.test(id))).toBe(true);
    expect(['aq_help_pages', 'xaq_help_page', 'aq_help_page~', 'aq_help_page~2x'].some((id) => matcher.test(id))).toBe(false);
    expect(actionMatcher('a.b').test('axb')).toBe(false);
  });

  it('blocks combined into one message get unique block ids; blocks without an id are left alone', () => {
    const row = (blockId: string) => actionsBlock([button('Go', 'aq_go', 'v')], blockId);
    const blocks = uniqueBlockIds([row('task:t1'), section('text'), row('task:t1'), row('task:t2'), row('task:t1')]);
    expect(blocks.map((b) => b.block_id)).toEqual(['task:t1', undefined, 'task:t1~2', 'task:t2', 'task:t1~3']);
  });
});
