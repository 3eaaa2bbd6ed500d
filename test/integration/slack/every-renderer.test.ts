import { ALL_COMMANDS } from '../../../src/commands';
import type { Surface } from '../../support/block-html';
import { everyRenderer } from '../../support/every-renderer';
import { describeViolations, validateMessage, validateView, type Violation } from '../../support/slack-validator';

function violationsOf(surface: Surface): Violation[] {
  if (surface.kind === 'modal' || surface.kind === 'home') return validateView(surface.view);
  const messages = surface.kind === 'room' ? surface.messages : [surface, ...(surface.thread ?? [])];
  return messages.flatMap((m) => validateMessage({ text: m.text, blocks: m.blocks }));
}

describe('every renderer, with sample data', () => {
  let all: Record<string, Surface[]>;
  beforeAll(async () => {
    all = await everyRenderer();
  });

  it('renders payloads Slack accepts: limits, escaping, unique action ids in a block and unique block ids', async () => {
    const problems: string[] = [];
    let surfaces = 0;
    for (const [name, list] of Object.entries(all)) {
      for (const surface of list) {
        surfaces += 1;
        const found = violationsOf(surface);
        if (found.length) problems.push(describeViolations(`${name} / ${surface.label ?? surface.kind}`, found));
      }
    }
    expect(problems).toEqual([]);
    // The sample set reaches every command's card, error and help page, not a handful.
    expect(surfaces).toBeGreaterThan(3 * ALL_COMMANDS.length);
  });

  it('the help page of a command names its group and the overview in one row without a repeated action id', async () => {
    const help = all['help pages'].find((s) => s.label === 'help create_task');
    const row = (help?.kind === 'message' ? help.blocks : [])?.find((b) => b.type === 'actions') as {
      elements: Array<{ action_id: string; value: string }>;
    };
    expect(row.elements.map((e) => [e.action_id, e.value])).toEqual([
      ['aq_help_page', 'overview'],
      ['aq_help_page~2', 'tasks:0'],
    ]);
  });
});
