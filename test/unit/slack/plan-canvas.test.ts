import { parsePlan } from '../../../src/plan/parser';
import { CANVAS_MAX_BYTES, canvasHash, planCanvasMarkdown } from '../../../src/slack/rooms/plan-canvas';

const step = (title: string, description: string) => ({ title, description });

describe('the plan canvas text', () => {
  it('reads back through the plan parser as the same steps, whatever their details hold', () => {
    const plan = {
      title: 'Ship\nit',
      steps: [
        step('Add the model', '**Add the model**\n\n## Background Context\nshared\n## Task Details\n## Sub heading\nshort'),
        step('Add the view', 'x'),
        step('Wire it up', '1. first\n2. second\n### Not a step\nmore words here please'),
      ],
    };
    const text = planCanvasMarkdown(plan);
    expect(text.startsWith('# Plan of Ship it\n')).toBe(true);
    expect(text).not.toContain('Background Context');
    expect(parsePlan(text).steps.map((s) => s.title)).toEqual(['Add the model', 'Add the view', 'Wire it up']);
  });

  it('keeps within the canvas cap by cutting details, never steps', () => {
    const plan = { title: 'Big', steps: Array.from({ length: 20 }, (_, i) => step(`Step ${i} work`, 'word '.repeat(20_000))) };
    const text = planCanvasMarkdown(plan);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(CANVAS_MAX_BYTES);
    expect(parsePlan(text).steps).toHaveLength(20);
    const small = planCanvasMarkdown(plan, 20_000);
    expect(Buffer.byteLength(small)).toBeLessThanOrEqual(20_000);
    expect(parsePlan(small).steps).toHaveLength(20);
  });

  it('hashes the text the same however Slack reads it back, and differently when what it says changed', () => {
    expect(canvasHash('# A\r\n\r\nb\r\n')).toBe(canvasHash('# A\n\nb'));
    const written = '# Plan of <x> & y\n\n## Step 1: Do it\n\n- one\n- two !\\[](@U1)\n1. first\n';
    const readBack = '# Plan of &lt;x&gt; &amp; y  \r\n\r\n\r\n## Step 1: Do it \r\n\r\n* one\r\n• two ![](@U1)\r\n1) first';
    expect(canvasHash(readBack)).toBe(canvasHash(written));
    expect(canvasHash('# A\n\nb')).not.toBe(canvasHash('# A\n\nc'));
    expect(canvasHash(written)).not.toBe(canvasHash(written.replace('Do it', 'Do it twice')));
    expect(canvasHash(written)).not.toBe(canvasHash(written.replace('- two', '- three')));
    // Bold at the start of a line is not a bullet.
    expect(canvasHash('*bold* text')).not.toBe(canvasHash('-bold* text'));
  });

  it('keeps mentions an agent wrote from becoming mentions in the canvas', () => {
    const text = planCanvasMarkdown({
      title: 'Ping ![](@U999)',
      steps: [step('Tell ![](#C1) and ![x](!channel)', 'Then ![](@U999) again, and keep [a link](https://example.com).')],
    });
    expect(text).not.toMatch(/(?<!\\)!\[[^\]]*\]\(/);
    expect(text).toContain('Ping !\\[](@U999)');
    expect(text).toContain('[a link](https://example.com)');
    expect(parsePlan(text).steps).toHaveLength(1);
  });
});
