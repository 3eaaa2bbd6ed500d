/**
 * A deliberately plain implementation of the plan-parser spec: the spec's regular expressions
 * (in Python's semantics, from python-text.ts) applied as written, every step built, then cut.
 * Slow, but easy to check against the spec line by line; the production parser must give the
 * same result for every input (plan-equivalence.test.ts).
 */
import { PY_D, PY_DOT, PY_LINE_END, PY_LINE_START, PY_S } from '../../../src/plan/python-text';
import { NON_ACTIONABLE_HEADINGS, type ParsedPlan, type PlanStep } from '../../../src/plan/parser';

const HEADING = new RegExp(`${PY_LINE_START}(#{2,3})${PY_S}+(${PY_DOT}+)${PY_LINE_END}`, 'gu');
const NUMBERED_ITEM = new RegExp(`${PY_LINE_START}(${PY_D}+)[.)]${PY_S}+(${PY_DOT}+)${PY_LINE_END}`, 'gu');
const TITLE_HEADING = new RegExp(`${PY_LINE_START}#${PY_S}+(${PY_DOT}+)${PY_LINE_END}`, 'u');

const CLEANING_RULES: Array<[RegExp, string]> = [
  [new RegExp(`^(?:Step|Phase|Part|Task)${PY_S}*${PY_D}+${PY_S}*[:.)\\-\\u2014\\u2013]${PY_S}*`, 'iu'), ''],
  [new RegExp(`^(?:Step|Phase|Part|Task)${PY_S}+${PY_D}+${PY_S}+`, 'iu'), ''],
  [new RegExp(`^${PY_D}+[.):\\-\\u2014\\u2013]${PY_S}*`, 'u'), ''],
  [new RegExp(`\\*{1,2}(${PY_DOT}+?)\\*{1,2}`, 'gu'), '$1'],
];

export function referenceStrip(text: string): string {
  return text.replace(new RegExp(`^${PY_S}+`, 'u'), '').replace(new RegExp(`${PY_S}+$`, 'u'), '');
}

/** Rule 5 alone: emphasis markers around a run of text, taken off. */
export function referenceWithoutEmphasis(text: string): string {
  return text.replace(CLEANING_RULES[3][0], CLEANING_RULES[3][1]);
}

export function referenceCleanTitle(text: string): string {
  let title = text;
  for (const [pattern, replacement] of CLEANING_RULES) title = title.replace(pattern, replacement);
  return referenceStrip(title);
}

const codePoints = (text: string): string[] => Array.from(text);

function headings(content: string): PlanStep[] {
  const matches = [...content.matchAll(HEADING)];
  const steps: PlanStep[] = [];
  matches.forEach((match, i) => {
    const title = referenceCleanTitle(match[2]);
    if (!title || NON_ACTIONABLE_HEADINGS.has(title.toLowerCase())) return;
    const end = i + 1 < matches.length ? matches[i + 1].index : content.length;
    const body = referenceStrip(content.slice(match.index + match[0].length, end));
    if (codePoints(body).length < 20) return;
    steps.push({ title, description: body, priorityHint: steps.length });
  });
  return steps;
}

function numbered(content: string): PlanStep[] {
  const matches = [...content.matchAll(NUMBERED_ITEM)];
  const steps: PlanStep[] = [];
  matches.forEach((match, i) => {
    const title = referenceCleanTitle(match[2]);
    if (!title) return;
    const end = i + 1 < matches.length ? matches[i + 1].index : content.length;
    const body = referenceStrip(content.slice(match.index + match[0].length, end));
    const chars = codePoints(title);
    const short = chars.length <= 120 ? title : `${chars.slice(0, 117).join('')}...`;
    steps.push({ title: short, description: body ? `${title}\n\n${body}` : title, priorityHint: i });
  });
  return steps;
}

/** The `# Title` match and the line break that ends its line are removed together. */
export function referenceWithoutTitleLine(content: string, heading: RegExpExecArray): string {
  let end = heading.index + heading[0].length;
  if (content[end] === '\n') end += 1;
  return content.slice(0, heading.index) + content.slice(end);
}

function singleStep(content: string): PlanStep[] {
  const heading = TITLE_HEADING.exec(content);
  const title = heading ? referenceStrip(heading[1]) : 'Implementation Plan';
  const body = referenceStrip(heading ? referenceWithoutTitleLine(content, heading) : content);
  return body ? [{ title, description: body, priorityHint: 0 }] : [];
}

const STRATEGIES = { headings, numbered, singleStep } as const;

/** Which strategy decides, and its steps before the cut. */
export function referenceStrategy(content: string): { name: keyof typeof STRATEGIES | 'none'; steps: PlanStep[] } {
  const text = content.replace(/\r\n/g, '\n');
  for (const [name, strategy] of Object.entries(STRATEGIES) as Array<[keyof typeof STRATEGIES, (t: string) => PlanStep[]]>) {
    const steps = strategy(text);
    if (steps.length > 0) return { name, steps };
  }
  return { name: 'none', steps: [] };
}

export function referenceParsePlan(content: string, maxSteps = 20, sourceFile = ''): ParsedPlan {
  if (!content) return { sourceFile, steps: [], rawContent: content };
  return { sourceFile, steps: referenceStrategy(content).steps.slice(0, maxSteps), rawContent: content };
}

export function referencePlanContext(content: string): string {
  const text = content.replace(/\r\n/g, '\n');
  const starts = [HEADING, NUMBERED_ITEM]
    .map((pattern) => new RegExp(pattern.source, 'u').exec(text)?.index)
    .filter((i): i is number => i !== undefined);
  if (starts.length === 0) return '';
  const preamble = text.slice(0, Math.min(...starts));
  const heading = TITLE_HEADING.exec(preamble);
  return referenceStrip(heading ? referenceWithoutTitleLine(preamble, heading) : preamble);
}
