import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import { PY_D, PY_DOT, PY_LINE_END, PY_LINE_START, PY_S, pyLen, pyPrefix, pyStrip } from './python-text';

/** A step of a plan: becomes one child task. */
export interface PlanStep {
  title: string;
  description: string;
  /** 0-based position of the step in the plan. */
  priorityHint: number;
}

export interface ParsedPlan {
  /** Absolute path of the plan file, for traceability ('' when parsed from text). */
  sourceFile: string;
  /** Ordered; empty when the plan has no actionable steps. */
  steps: PlanStep[];
  /** The full, unmodified plan text. */
  rawContent: string;
}

export interface ParsePlanOptions {
  sourceFile?: string;
  maxSteps?: number;
}

export const DEFAULT_MAX_STEPS = 20;
export const MIN_HEADING_BODY_LENGTH = 20;
export const MAX_NUMBERED_TITLE_LENGTH = 120;

/** Where an agent's plan is looked for, in this order. */
export const DEFAULT_PLAN_FILE_PATTERNS: readonly string[] = [
  '.agent/plan.md',
  'plan.md',
  'docs/plans/*.md',
  'plans/*.md',
  'docs/plan.md',
];

/** Headings that describe a plan rather than ask for work (compared lowercased, after cleaning). */
export const NON_ACTIONABLE_HEADINGS: ReadonlySet<string> = new Set([
  'overview', 'summary', 'background', 'context', 'introduction', 'conclusion', 'notes',
  'references', 'appendix', 'prerequisites', 'requirements', 'assumptions', 'risks',
  'open questions', 'future work', 'out of scope', 'glossary', 'table of contents', 'motivation',
  'goals', 'non-goals', 'success criteria', 'files modified', 'files to modify', 'file changes',
  'testing strategy', 'testing notes', 'rollback plan', 'implementation order', 'dependency graph',
  'design decisions', 'key decisions', 'additional observations', 'identified gaps', 'verdict',
  'executive summary', 'problem statement', 'data flow', 'file change summary',
  'user workflow examples',
]);

// The spec's expressions, in Python's semantics (see python-text.ts).
const HEADING = new RegExp(`${PY_LINE_START}(#{2,3})${PY_S}+(${PY_DOT}+)${PY_LINE_END}`, 'gu');
const NUMBERED_ITEM = new RegExp(`${PY_LINE_START}(${PY_D}+)[.)]${PY_S}+(${PY_DOT}+)${PY_LINE_END}`, 'gu');
const TITLE_HEADING = new RegExp(`${PY_LINE_START}#${PY_S}+(${PY_DOT}+)${PY_LINE_END}`, 'u');

const SEPARATORS = ':.)\\-\\u2014\\u2013';
const CLEANING_RULES: Array<[RegExp, string]> = [
  [new RegExp(`^(?:Step|Phase|Part|Task)${PY_S}*${PY_D}+${PY_S}*[${SEPARATORS}]${PY_S}*`, 'iu'), ''],
  [new RegExp(`^(?:Step|Phase|Part|Task)${PY_S}+${PY_D}+${PY_S}+`, 'iu'), ''],
  [new RegExp(`^${PY_D}+[.):\\-\\u2014\\u2013]${PY_S}*`, 'u'), ''],
  [new RegExp(`\\*{1,2}(${PY_DOT}+?)\\*{1,2}`, 'gu'), '$1'],
];

/** The spec's title cleaning, rules 1–5 in order. */
export function cleanTitle(text: string): string {
  let title = text;
  for (const [pattern, replacement] of CLEANING_RULES) title = title.replace(pattern, replacement);
  return pyStrip(title);
}

function cut(steps: PlanStep[], maxSteps: number): PlanStep[] {
  // Python's steps[:max_steps], negative values included.
  return steps.slice(0, maxSteps);
}

function parseHeadings(content: string): PlanStep[] {
  const matches = [...content.matchAll(HEADING)];
  const steps: PlanStep[] = [];
  matches.forEach((match, i) => {
    const title = cleanTitle(match[2]);
    if (!title || NON_ACTIONABLE_HEADINGS.has(title.toLowerCase())) return;
    const bodyStart = match.index + match[0].length;
    const bodyEnd = i + 1 < matches.length ? matches[i + 1].index : content.length;
    const body = pyStrip(content.slice(bodyStart, bodyEnd));
    if (pyLen(body) < MIN_HEADING_BODY_LENGTH) return;
    steps.push({ title, description: body, priorityHint: steps.length });
  });
  return steps;
}

function truncateTitle(title: string): string {
  if (pyLen(title) <= MAX_NUMBERED_TITLE_LENGTH) return title;
  return `${pyPrefix(title, MAX_NUMBERED_TITLE_LENGTH - 3)}...`;
}

function parseNumberedList(content: string): PlanStep[] {
  const matches = [...content.matchAll(NUMBERED_ITEM)];
  const steps: PlanStep[] = [];
  matches.forEach((match, i) => {
    const title = cleanTitle(match[2]);
    if (!title) return;
    const bodyStart = match.index + match[0].length;
    const bodyEnd = i + 1 < matches.length ? matches[i + 1].index : content.length;
    const body = pyStrip(content.slice(bodyStart, bodyEnd));
    steps.push({
      title: truncateTitle(title),
      description: body ? `${title}\n\n${body}` : title,
      priorityHint: i,
    });
  });
  return steps;
}

function parseSingleStep(content: string): PlanStep[] {
  const heading = TITLE_HEADING.exec(content);
  const title = heading ? pyStrip(heading[1]) : 'Implementation Plan';
  const rest = heading ? content.slice(0, heading.index) + content.slice(heading.index + heading[0].length) : content;
  const body = pyStrip(rest);
  return body ? [{ title, description: body, priorityHint: 0 }] : [];
}

/**
 * Turns a Markdown plan into ordered steps: headings first, then a numbered list, then the
 * whole document as one step; the first strategy that finds a step wins.
 */
export function parsePlan(content: string, options: ParsePlanOptions = {}): ParsedPlan {
  const sourceFile = options.sourceFile ?? '';
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
  if (!content) return { sourceFile, steps: [], rawContent: content };
  // CRLF files parse like LF files; rawContent keeps the original.
  const text = content.replace(/\r\n/g, '\n');
  for (const strategy of [parseHeadings, parseNumberedList, parseSingleStep]) {
    const steps = strategy(text);
    if (steps.length > 0) return { sourceFile, steps: cut(steps, maxSteps), rawContent: content };
  }
  return { sourceFile, steps: [], rawContent: content };
}

/**
 * The plan's preamble (text before its first step, without the `# Title` line), used as
 * background for every child task. Empty when the plan has no heading or numbered steps.
 */
export function extractPlanContext(content: string): string {
  const text = content.replace(/\r\n/g, '\n');
  const firstStep = [HEADING, NUMBERED_ITEM]
    .map((pattern) => new RegExp(pattern.source, 'u').exec(text)?.index)
    .filter((i): i is number => i !== undefined)
    .sort((a, b) => a - b)[0];
  if (firstStep === undefined) return '';
  const preamble = text.slice(0, firstStep);
  return pyStrip(preamble.replace(TITLE_HEADING, ''));
}

/** The child task's description: the step, its background and where it comes from. */
export function buildTaskDescription(step: PlanStep, parentTask?: { title: string } | null, planContext = ''): string {
  const parts = [`**${step.title}**\n`];
  if (planContext) parts.push(`## Background Context\n${planContext}\n`);
  if (parentTask && parentTask.title) {
    parts.push(`This task is part of the implementation plan from: **${parentTask.title}**\n`);
  }
  parts.push(`## Task Details\n${step.description}`);
  return parts.join('\n');
}

async function isRegularFile(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

async function mtimeMs(file: string): Promise<number> {
  return (await stat(file)).mtimeMs;
}

/**
 * The first plan file found in `workspace`: patterns are tried in order and the first one that
 * matches decides (a plain path shadows later globs); a glob picks its newest regular file.
 */
export async function findPlanFile(workspace: string, patterns: readonly string[] = DEFAULT_PLAN_FILE_PATTERNS): Promise<string | null> {
  for (const pattern of patterns) {
    const joined = path.join(workspace, pattern);
    if (!/[*?]/.test(pattern)) {
      if (await isRegularFile(joined)) return joined;
      continue;
    }
    const found = await fg(`${fg.escapePath(workspace.split(path.sep).join('/'))}/${pattern}`, {
      onlyFiles: false,
      dot: false,
      absolute: true,
      followSymbolicLinks: true,
    });
    const files: Array<{ file: string; mtime: number }> = [];
    for (const match of found) {
      const file = path.normalize(match);
      if (await isRegularFile(file)) files.push({ file, mtime: await mtimeMs(file) });
    }
    if (files.length > 0) {
      return files.reduce((newest, f) => (f.mtime > newest.mtime ? f : newest)).file;
    }
  }
  return null;
}

/** The plan file's text as UTF-8, unmodified. */
export function readPlanFile(file: string): Promise<string> {
  return readFile(file, 'utf8');
}
