import {
  buildTaskDescription,
  cleanTitle,
  DEFAULT_PLAN_FILE_PATTERNS,
  extractPlanContext,
  NON_ACTIONABLE_HEADINGS,
  parsePlan,
} from '../../../src/plan/parser';

const BODY = 'Implement the thing carefully with tests.';

describe('cleanTitle (rules in order)', () => {
  it.each([
    ['Step 1: Build it', 'Build it'],
    ['step 2. Build it', 'Build it'],
    ['PHASE 3) Build it', 'Build it'],
    ['Part 4 - Build it', 'Build it'],
    ['Task 5 — Build it', 'Build it'],
    ['Task 6 – Build it', 'Build it'],
    ['Step10:Build it', 'Build it'],
    ['Phase 7 Build it', 'Build it'],
    ['12. Build it', 'Build it'],
    ['3) Build it', 'Build it'],
    ['4: Build it', 'Build it'],
    ['5- Build it', 'Build it'],
    ['6— Build it', 'Build it'],
    ['**Bold** and *em* text', 'Bold and em text'],
    ['Step 1: **Wire** it', 'Wire it'],
    ['  padded  ', 'padded'],
    ['Stepping stones', 'Stepping stones'],
    ['Step one: words', 'Step one: words'],
    ['Step ٣: Arabic-Indic digit', 'Arabic-Indic digit'],
  ])('%j → %j', (input, expected) => {
    expect(cleanTitle(input)).toBe(expected);
  });

  it('applies rule 3 after rules 1 and 2, so one leading number is removed', () => {
    expect(cleanTitle('Step 1: 2. Build')).toBe('Build');
  });
});

describe('heading-based parsing', () => {
  it('takes depth 2 and 3 headings with bodies, ignoring depth 1 and 4', () => {
    const plan = `# Title\n\n## First\n${BODY}\n\n### Second\n${BODY}\n\n#### Deep\n${BODY}\n`;
    const { steps } = parsePlan(plan);
    expect(steps.map((s) => s.title)).toEqual(['First', 'Second']);
    // The depth-4 heading is not a heading here, so it stays in the body of "Second".
    expect(steps[1].description).toBe(`${BODY}\n\n#### Deep\n${BODY}`);
    expect(steps[0].description).toBe(BODY);
  });

  it('drops every non-actionable heading, case-insensitively and after cleaning', () => {
    const headings = [...NON_ACTIONABLE_HEADINGS].map((h) => `## Step 1: ${h.toUpperCase()}\n${BODY}\n`).join('\n');
    expect(NON_ACTIONABLE_HEADINGS.size).toBe(40);
    const plan = `${headings}\n## Real work\n${BODY}\n`;
    expect(parsePlan(plan).steps).toEqual([{ title: 'Real work', description: BODY, priorityHint: 0 }]);
  });

  it('skips bodies shorter than 20 code points after stripping, and keeps priority hints gapless', () => {
    const nineteen = '😀'.repeat(19);
    const twenty = '😀'.repeat(20);
    const plan = `## A\n   ${nineteen}   \n## B\n${twenty}\n## Overview\n${BODY}\n## C\n${BODY}\n`;
    const { steps } = parsePlan(plan);
    expect(steps.map((s) => [s.title, s.priorityHint])).toEqual([
      ['B', 0],
      ['C', 1],
    ]);
  });

  it('skips headings whose title cleans to nothing', () => {
    expect(parsePlan(`## Step 1:\n${BODY}\n## **Done**\n${BODY}\n`).steps.map((s) => s.title)).toEqual(['Done']);
  });

  it("lets \\s+ cross line breaks as Python's does", () => {
    const { steps } = parsePlan(`##\n\nHidden title\n${BODY}\n`);
    expect(steps).toEqual([{ title: 'Hidden title', description: BODY, priorityHint: 0 }]);
  });

  it('parses CRLF files like LF files and keeps raw_content unmodified', () => {
    const lf = `# T\n\n## One\n${BODY}\n\n## Two\n${BODY}\n`;
    const crlf = lf.replace(/\n/g, '\r\n');
    const parsed = parsePlan(crlf, { sourceFile: '/x/plan.md' });
    expect(parsed.steps).toEqual(parsePlan(lf).steps);
    expect(parsed.rawContent).toBe(crlf);
    expect(parsed.sourceFile).toBe('/x/plan.md');
  });

  it('treats only \\n as a line break: a lone \\r stays inside the title', () => {
    const { steps } = parsePlan(`## One\rTwo\n${BODY}\n`);
    expect(steps[0].title).toBe('One\rTwo');
  });

  it('cuts to max_steps (20 by default)', () => {
    const plan = Array.from({ length: 25 }, (_, i) => `## Step ${i + 1}: Item ${i}\n${BODY}\n`).join('\n');
    expect(parsePlan(plan).steps).toHaveLength(20);
    expect(parsePlan(plan, { maxSteps: 3 }).steps.map((s) => s.title)).toEqual(['Item 0', 'Item 1', 'Item 2']);
    expect(parsePlan(plan, { maxSteps: 0 }).steps).toEqual([]);
  });
});

describe('numbered-list fallback', () => {
  it('accepts 1. and 1), keeps continuation lines and sub-items in the body', () => {
    const plan = '# Plan\n\nIntro text.\n\n1. First thing\n   more detail\n   - sub item\n2) **Second** thing\n3. Third\n';
    const { steps } = parsePlan(plan);
    expect(steps).toEqual([
      { title: 'First thing', description: 'First thing\n\nmore detail\n   - sub item', priorityHint: 0 },
      { title: 'Second thing', description: 'Second thing', priorityHint: 1 },
      { title: 'Third', description: 'Third', priorityHint: 2 },
    ]);
  });

  it('does not filter non-actionable words and keeps match indexes as hints even when items are skipped', () => {
    const { steps } = parsePlan('1. Overview\n2. **  **\n3. Build\n');
    expect(steps.map((s) => [s.title, s.priorityHint])).toEqual([
      ['Overview', 0],
      ['Build', 2],
    ]);
  });

  it('truncates titles to 120 code points with an ellipsis, never splitting a character', () => {
    const long = '𝔸'.repeat(130);
    const { steps } = parsePlan(`1. ${long}\n`);
    expect(Array.from(steps[0].title)).toHaveLength(120);
    expect(steps[0].title).toBe(`${'𝔸'.repeat(117)}...`);
    expect(steps[0].description).toBe(long);
    const exact = 'x'.repeat(120);
    expect(parsePlan(`1. ${exact}\n`).steps[0].title).toBe(exact);
  });

  it('is used only when no heading step survives, and respects max_steps', () => {
    const plan = `## Overview\n${BODY}\n\n1. Alpha\n2. Beta\n3. Gamma\n`;
    expect(parsePlan(plan, { maxSteps: 2 }).steps.map((s) => s.title)).toEqual(['Alpha', 'Beta']);
  });

  it("matches Unicode digits as Python's \\d does", () => {
    expect(parsePlan('١. Arabic one\n').steps.map((s) => s.title)).toEqual(['Arabic one']);
  });
});

describe('single-step fallback', () => {
  it('uses the first depth-1 heading as the title and the rest as the description', () => {
    expect(parsePlan('# Fix the bug\n\nThe login form crashes.\n').steps).toEqual([
      { title: 'Fix the bug', description: 'The login form crashes.', priorityHint: 0 },
    ]);
  });

  it('uses "Implementation Plan" when there is no title', () => {
    expect(parsePlan('Just do it.').steps).toEqual([{ title: 'Implementation Plan', description: 'Just do it.', priorityHint: 0 }]);
  });

  it('removes the title line whole, leaving no blank line where it was', () => {
    expect(parsePlan('Preface text.\n# The Title\nBody text here.').steps).toEqual([
      { title: 'The Title', description: 'Preface text.\nBody text here.', priorityHint: 0 },
    ]);
    expect(parsePlan('Preface text.\r\n# The Title\r\nBody text here.\r\n').steps[0].description).toBe('Preface text.\nBody text here.');
    expect(parsePlan('Preface text.\n\n# The Title\n\nBody text here.').steps[0].description).toBe('Preface text.\n\n\nBody text here.');
    expect(parsePlan('Preface text.\n# The Title').steps[0].description).toBe('Preface text.');
  });

  it('returns no step when only a title remains, and nothing for empty content', () => {
    expect(parsePlan('# Only a title\n\n').steps).toEqual([]);
    expect(parsePlan('')).toEqual({ sourceFile: '', steps: [], rawContent: '' });
    expect(parsePlan('   \n\t\n').steps).toEqual([]);
  });
});

describe('buildTaskDescription', () => {
  const step = { title: 'Add login', description: 'Details here.', priorityHint: 0 };
  it('joins the parts with single newlines in all four combinations', () => {
    expect(buildTaskDescription(step)).toBe('**Add login**\n\n## Task Details\nDetails here.');
    expect(buildTaskDescription(step, null, 'Why.')).toBe('**Add login**\n\n## Background Context\nWhy.\n\n## Task Details\nDetails here.');
    expect(buildTaskDescription(step, { title: 'Auth' })).toBe(
      '**Add login**\n\nThis task is part of the implementation plan from: **Auth**\n\n## Task Details\nDetails here.',
    );
    expect(buildTaskDescription(step, { title: 'Auth' }, 'Why.')).toBe(
      '**Add login**\n\n## Background Context\nWhy.\n\nThis task is part of the implementation plan from: **Auth**\n\n## Task Details\nDetails here.',
    );
  });
});

describe('extractPlanContext', () => {
  it('returns the preamble without the title line', () => {
    expect(extractPlanContext(`# Auth plan\n\nWe use JWT.\n\n## Step 1: Login\n${BODY}\n`)).toBe('We use JWT.');
    expect(extractPlanContext('# Nothing actionable\n\nprose')).toBe('');
    expect(extractPlanContext(`Why.\n# Auth plan\nHow.\n\n## Login\n${BODY}\n`)).toBe('Why.\nHow.');
  });
});

it('exports the default search order', () => {
  expect(DEFAULT_PLAN_FILE_PATTERNS).toEqual(['.agent/plan.md', 'plan.md', 'docs/plans/*.md', 'plans/*.md', 'docs/plan.md']);
});

describe('adversarial input', () => {
  it.each([
    ['#', '#'.repeat(200_000)],
    ['*', `## ${'*'.repeat(200_000)}\n${BODY}`],
    ['digits', `${'1'.repeat(200_000)}`],
    ['spaces after ##', `##${' '.repeat(200_000)}`],
    ['newlines after ##', `##${'\n'.repeat(200_000)}`],
  ])('%s finishes and parses', (_name, input) => {
    const parsed = parsePlan(input);
    expect(parsed.rawContent).toBe(input);
    expect(Array.isArray(parsed.steps)).toBe(true);
  });
});
