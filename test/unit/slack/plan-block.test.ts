import { cardStatus, PLAN_BLOCK_LIMITS, planBlockMessage, planListMessage } from '../../../src/slack/blocks/plan-block';
import { HOSTILE, showsLiterally } from '../../support/hostile';
import { validateMessage } from '../../support/slack-validator';

const steps = (n: number, title = (i: number) => `Step ${i + 1}`) =>
  Array.from({ length: n }, (_, i) => ({ id: `t-${i + 1}`, title: title(i), status: 'DEFINED' }));

describe('the plan block renderer', () => {
  it('maps task statuses to the four card statuses', () => {
    expect(['DEFINED', 'READY'].map((s) => cardStatus(s))).toEqual(['pending', 'pending']);
    expect(['ASSIGNED', 'IN_PROGRESS', 'WAITING_INPUT', 'PAUSED', 'AWAITING_APPROVAL'].map((s) => cardStatus(s))).toEqual(
      Array(5).fill('in_progress'),
    );
    expect(cardStatus('COMPLETED')).toBe('complete');
    expect(cardStatus('COMPLETED', true)).toBe('complete');
    expect(['FAILED', 'BLOCKED'].map((s) => cardStatus(s))).toEqual(['error', 'error']);
  });

  it('keeps within the caps: past the cards a plan holds, the first ones and a line saying how many more', () => {
    const plan = { taskId: 'parent-1', title: 'x'.repeat(400), steps: steps(25, () => `${'long '.repeat(60)}title`) };
    for (const message of [planBlockMessage(plan), planListMessage(plan)]) {
      expect(validateMessage({ ...message })).toEqual([]);
      expect(JSON.stringify(message.blocks)).toContain('… and 6 more: /aq get_plan task_id=parent-1');
    }
    const block = planBlockMessage(plan).blocks[0] as { title: string; tasks: Array<{ title: string }> };
    expect(block.tasks).toHaveLength(PLAN_BLOCK_LIMITS.cards - 1);
    expect(block.title.length).toBeLessThanOrEqual(PLAN_BLOCK_LIMITS.title);
    expect(Math.max(...block.tasks.map((t) => t.title.length))).toBeLessThanOrEqual(PLAN_BLOCK_LIMITS.cardTitle);
    const exact = planBlockMessage({ ...plan, steps: steps(PLAN_BLOCK_LIMITS.cards) });
    expect(exact.blocks).toHaveLength(1);
  });

  it('shows titles we did not write literally, one line each, and escapes the fallback text', () => {
    const plan = {
      taskId: 'p',
      title: HOSTILE,
      steps: steps(2, () => HOSTILE).concat({ id: 't-x', title: 'two\nlines\u0007', status: 'READY' }),
    };
    for (const message of [planBlockMessage(plan), planListMessage(plan)]) {
      expect(validateMessage({ ...message })).toEqual([]);
      expect(showsLiterally(message.blocks, HOSTILE)).toBe(true);
      expect(message.text).not.toContain('<!channel>');
    }
    const block = planBlockMessage(plan).blocks[0] as { tasks: Array<{ title: string }> };
    expect(block.tasks[2].title).toBe('two lines');
  });
});
