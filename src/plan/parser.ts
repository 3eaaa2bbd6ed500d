import { open, stat } from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import { firstMatchStart, LineScanner } from './line-patterns';
import { withoutEmphasis } from './emphasis';
import { PY_D, PY_S, pyLenAtLeast, pyPrefix, pyStrip, pyStripRange } from './python-text';

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
export const DEFAULT_PLAN_FILE_PATTERNS: readonly string[] = ['.agent/plan.md', 'plan.md', 'docs/plans/*.md', 'plans/*.md', 'docs/plan.md'];

/** Headings that describe a plan rather than ask for work (compared lowercased, after cleaning). */
export const NON_ACTIONABLE_HEADINGS: ReadonlySet<string> = new Set([
  'overview',
  'summary',
  'background',
  'context',
  'introduction',
  'conclusion',
  'notes',
  'references',
  'appendix',
  'prerequisites',
  'requirements',
  'assumptions',
  'risks',
  'open questions',
  'future work',
  'out of scope',
  'glossary',
  'table of contents',
  'motivation',
  'goals',
  'non-goals',
  'success criteria',
  'files modified',
  'files to modify',
  'file changes',
  'testing strategy',
  'testing notes',
  'rollback plan',
  'implementation order',
  'dependency graph',
  'design decisions',
  'key decisions',
  'additional observations',
  'identified gaps',
  'verdict',
  'executive summary',
  'problem statement',
  'data flow',
  'file change summary',
  'user workflow examples',
]);

// The spec's cleaning expressions, in Python's semantics (see python-text.ts).
const SEPARATORS = ':.)\\-\\u2014\\u2013';
const KEYWORD_PREFIX = new RegExp(`^(?:Step|Phase|Part|Task)${PY_S}*${PY_D}+${PY_S}*[${SEPARATORS}]${PY_S}*`, 'iu');
const KEYWORD_NUMBER = new RegExp(`^(?:Step|Phase|Part|Task)${PY_S}+${PY_D}+${PY_S}+`, 'iu');
const LEADING_NUMBER = new RegExp(`^${PY_D}+[${SEPARATORS}]${PY_S}*`, 'u');

/** Could `text` start with a keyword of rules 1–2? (Non-ASCII letters may case-fold to one.) */
function mayStartWithKeyword(text: string): boolean {
  const code = text.charCodeAt(0) | 0x20;
  return code === 0x73 /* s */ || code === 0x70 /* p */ || code === 0x74 /* t */ || text.charCodeAt(0) >= 0x80;
}

/** Could `text` start with a digit (Python's `\d` includes non-ASCII digits)? */
function mayStartWithDigit(text: string): boolean {
  const code = text.charCodeAt(0);
  return (code >= 0x30 && code <= 0x39) || code >= 0x80;
}

/** The spec's title cleaning, rules 1–5 in order (each rule skipped when it cannot match). */
export function cleanTitle(text: string): string {
  let title = text;
  if (mayStartWithKeyword(title)) title = title.replace(KEYWORD_PREFIX, '');
  if (mayStartWithKeyword(title)) title = title.replace(KEYWORD_NUMBER, '');
  if (mayStartWithDigit(title)) title = title.replace(LEADING_NUMBER, '');
  title = withoutEmphasis(title);
  return pyStrip(title);
}

/**
 * How many steps a strategy has to find: enough to fill `steps.slice(0, maxSteps)` (Python's
 * `steps[:max_steps]`, where a negative value counts from the end and so needs every step), and
 * at least one, since finding one is what makes the strategy win.
 */
function stepsNeeded(maxSteps: number): number {
  const keep = Math.trunc(maxSteps);
  if (Number.isNaN(keep)) return 1;
  return keep >= 0 ? Math.max(1, keep) : Infinity;
}

function parseHeadings(content: string, needed: number): PlanStep[] {
  const steps: PlanStep[] = [];
  const scanner = LineScanner.headings(content);
  // Each body ends where the next match starts, so the scanner reads one match ahead.
  for (let found = scanner.next(); found && steps.length < needed; ) {
    const { textStart, end } = scanner;
    found = scanner.next();
    // The body test first: it is the cheaper one, and a heading needs both.
    const body = pyStripRange(content, end, found ? scanner.start : content.length);
    if (!pyLenAtLeast(body, MIN_HEADING_BODY_LENGTH)) continue;
    const title = cleanTitle(content.slice(textStart, end));
    if (!title || NON_ACTIONABLE_HEADINGS.has(title.toLowerCase())) continue;
    steps.push({ title, description: body, priorityHint: steps.length });
  }
  return steps;
}

function truncateTitle(title: string): string {
  if (title.length <= MAX_NUMBERED_TITLE_LENGTH || !pyLenAtLeast(title, MAX_NUMBERED_TITLE_LENGTH + 1)) return title;
  return `${pyPrefix(title, MAX_NUMBERED_TITLE_LENGTH - 3)}...`;
}

/**
 * `content.slice(start, end)` when no cleaning rule can change it (the common case, checked
 * without building the string), else null: it starts with a printable ASCII character that
 * cannot begin a keyword or a number, ends with one, and holds no `*`.
 */
function plainTitle(content: string, start: number, end: number): string | null {
  const first = content.charCodeAt(start);
  const last = content.charCodeAt(end - 1);
  if (first <= 0x20 || first >= 0x7f || last <= 0x20 || last >= 0x7f) return null;
  const lower = first | 0x20;
  if ((first >= 0x30 && first <= 0x39) || lower === 0x73 /* s */ || lower === 0x70 /* p */ || lower === 0x74 /* t */) return null;
  for (let i = start; i < end; i++) if (content.charCodeAt(i) === 0x2a /* * */) return null;
  return content.slice(start, end);
}

function parseNumberedList(content: string, needed: number): PlanStep[] {
  const steps: PlanStep[] = [];
  const scanner = LineScanner.numberedItems(content);
  for (let found = scanner.next(), priorityHint = 0; found && steps.length < needed; priorityHint++) {
    const { textStart, end } = scanner;
    found = scanner.next();
    const title = plainTitle(content, textStart, end) ?? cleanTitle(content.slice(textStart, end));
    if (!title) continue;
    const body = pyStripRange(content, end, found ? scanner.start : content.length);
    steps.push({ title: truncateTitle(title), description: body ? `${title}\n\n${body}` : title, priorityHint });
  }
  return steps;
}

/** `content` without the `# Title` line `scanner` stands on, its line break included. */
function withoutTitleLine(content: string, scanner: LineScanner): string {
  const lineEnd = content.charCodeAt(scanner.end) === 0x0a ? scanner.end + 1 : scanner.end;
  return content.slice(0, scanner.start) + content.slice(lineEnd);
}

function parseSingleStep(content: string): PlanStep[] {
  const heading = LineScanner.titleHeadings(content);
  const found = heading.next();
  const title = found ? pyStrip(content.slice(heading.textStart, heading.end)) : 'Implementation Plan';
  const body = pyStrip(found ? withoutTitleLine(content, heading) : content);
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
  const text = content.includes('\r\n') ? content.replace(/\r\n/g, '\n') : content;
  const needed = stepsNeeded(maxSteps);
  for (const strategy of [parseHeadings, parseNumberedList, parseSingleStep]) {
    const steps = strategy(text, needed);
    // Copied only when cut: a copy of a list of 840k steps is a cost of its own.
    if (steps.length > 0) return { sourceFile, steps: steps.length <= maxSteps ? steps : steps.slice(0, maxSteps), rawContent: content };
  }
  return { sourceFile, steps: [], rawContent: content };
}

/**
 * The plan's preamble (text before its first step, without the `# Title` line), used as
 * background for every child task. Empty when the plan has no heading or numbered steps.
 */
export function extractPlanContext(content: string): string {
  const text = content.replace(/\r\n/g, '\n');
  const starts = [firstMatchStart(LineScanner.headings(text)), firstMatchStart(LineScanner.numberedItems(text))];
  const firstStep = Math.min(...starts.filter((start) => start !== -1));
  if (firstStep === Infinity) return '';
  const preamble = text.slice(0, firstStep);
  const heading = LineScanner.titleHeadings(preamble);
  return pyStrip(heading.next() ? withoutTitleLine(preamble, heading) : preamble);
}

/** The child task's description: the step, its background and where it comes from. */
export function buildTaskDescription(step: PlanStep, parentTask?: { title: string } | null, planContext = ''): string {
  const parts = [`**${step.title}**\n`];
  if (planContext) parts.push(`## Background Context\n${planContext}\n`);
  if (parentTask?.title) {
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

/**
 * The largest plan file turned into tasks. An agent's plan is a few kilobytes; reading a file of
 * any size the agent left would let one run fill the app's memory.
 */
export const PLAN_FILE_MAX_BYTES = 4 * 1024 * 1024;

/** A plan file that holds more than PLAN_FILE_MAX_BYTES. */
export class PlanTooLarge extends Error {
  constructor(readonly file: string) {
    super(`${file} holds more than the ${PLAN_FILE_MAX_BYTES / 1024 / 1024} MB a plan may be.`);
  }
}

/**
 * The plan file's text as UTF-8, unmodified: a file, or what a pipe gives until it ends. Reading
 * stops past PLAN_FILE_MAX_BYTES (PlanTooLarge), so neither a huge file nor an endless stream
 * (`/dev/zero`) fills the memory.
 */
export async function readPlanFile(file: string): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(64 * 1024);
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > PLAN_FILE_MAX_BYTES) throw new PlanTooLarge(file);
      chunks.push(chunk.subarray(0, bytesRead));
    }
    return Buffer.concat(chunks, total).toString('utf8');
  } finally {
    await handle.close();
  }
}
