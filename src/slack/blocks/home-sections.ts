import type { Button, KnownBlock } from '@slack/types';
import type { AttentionRow, HomeData, OverlapRow, RunningRow } from '../home-data';
import { stopTaskButton, firstLine, formatDuration, plural } from './cards-format';
import { actionsBlock } from './actions';
import { button, clip, emoji, header, LIMITS } from './common';
import { bold, italic, link, mono, richLines, txt, type Line } from './text';
import { HOME_BUTTONS, REQUEST_CHANGES_BUTTONS, TASK_BUTTONS } from './action-ids';
import { trainPlaceLine } from './merge-train-place';

/** Buttons on one row (Slack: at most 25 per actions block). */
function row(...buttons: Array<Button | null>): KnownBlock {
  return actionsBlock(buttons.filter((b): b is Button => b !== null));
}

const contextLine = (text: string): KnownBlock => ({ type: 'context', elements: [{ type: 'mrkdwn', text }] });

/** "3 need you · 1 running · 5 ready": the counts in words. */
export function homeSummary(data: HomeData): string {
  const parts = [
    data.attentionTotal ? `${plural(data.attentionTotal, 'task')} need${data.attentionTotal === 1 ? 's' : ''} you` : 'Nothing needs you',
    data.runningTotal ? `${data.runningTotal} running` : 'nothing running',
    data.readyTotal ? `${data.readyTotal} ready to start` : 'no tasks waiting to start',
    plural(data.projectCount, 'project'),
    plural(data.agents.length, 'agent'),
  ];
  return parts.join(' · ');
}

export function homeHeader(data: HomeData, note?: string): KnownBlock[] {
  const blocks: KnownBlock[] = [header('Agent Queue')];
  // On a fresh install every count is zero: the first steps say more than "0 projects · 0 agents".
  if (data.projectCount > 0 || data.agents.length > 0) blocks.push(contextLine(homeSummary(data)));
  if (note) blocks.push(contextLine(note));
  const hasProject = data.projectCount > 0;
  blocks.push(
    row(
      hasProject ? button('➕ New task', HOME_BUTTONS.newTask, 'home', 'primary') : null,
      // Before the first project, the first steps offer "Create a project" already.
      hasProject ? button('New project', HOME_BUTTONS.newProject, 'home') : null,
      data.projectCount > 0 ? button('Add repository', HOME_BUTTONS.addRepo, 'home') : null,
      button('Refresh', HOME_BUTTONS.refresh, 'home'),
    ),
  );
  if (data.schedulingPaused) {
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: ':double_vertical_bar: *Scheduling is paused.* No new tasks start; running ones carry on.' },
      accessory: button('Resume scheduling', HOME_BUTTONS.resumeScheduling, 'resume', 'primary'),
    });
  }
  return blocks;
}

/** First steps on a fresh install: each step says what it is for and offers its button. */
export function firstSteps(data: HomeData): KnownBlock[] {
  const steps: Array<{ done: boolean; text: string; action: Button }> = [
    {
      done: data.projectCount > 0,
      text: '*1. Create a project.* A project groups tasks and their repositories, and can have its own channel.',
      action: button('Create a project', HOME_BUTTONS.newProject, 'first', 'primary'),
    },
    {
      done: data.repoCount > 0,
      text: '*2. Add a repository.* Clone one from a URL, link a folder on this machine, or start an empty one.',
      action: button('Add a repository', HOME_BUTTONS.addRepo, 'first'),
    },
    {
      done: data.agents.length > 0,
      text: '*3. Add an agent.* An agent is a Claude Code worker that picks up ready tasks.',
      action: button('Add an agent', HOME_BUTTONS.firstAgent, 'first'),
    },
    {
      done: Object.values(data.byStatus).some((n) => n > 0),
      text: '*4. Create a task.* Say what to do and how to tell it is done; an agent takes it from there.',
      action: button('Create a task', HOME_BUTTONS.newTask, 'first'),
    },
  ];
  // Repositories are optional (a task can work in the project folder), so they do not keep the welcome up.
  if (steps.every((s, i) => s.done || i === 1)) return [];
  const blocks: KnownBlock[] = [
    { type: 'section', text: { type: 'mrkdwn', text: ':wave: *Welcome to Agent Queue.* Four steps and your first agent is at work:' } },
  ];
  steps.forEach((s, i) => {
    const text = s.done ? `:white_check_mark: ~${s.text.replace(/\*/g, '')}~` : s.text;
    // A repository belongs to a project, so its button waits for the first project.
    const offered = !s.done && !(i === 1 && data.projectCount === 0);
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text }, ...(offered && { accessory: s.action }) });
  });
  blocks.push(contextLine('You can also type `/aq help` in any channel, or mention the app and ask in plain words.'));
  return blocks;
}

function attentionLine(t: AttentionRow): Line {
  const what =
    t.status === 'WAITING_INPUT'
      ? 'waiting for your answer'
      : t.status === 'AWAITING_APPROVAL'
        ? t.train
          ? 'approved, waiting to land'
          : 'awaiting approval'
        : t.status === 'FAILED'
          ? 'failed'
          : 'blocked';
  return [txt(`${emoji(t.status)} `), bold(t.title), txt(` · ${t.projectId} · ${what}`)];
}

/** Files an overlap row names before "and N more". */
const OVERLAP_FILES_ON_HOME = 3;

/** "⚠️ Title A and Title B · proj · both touch src/x.ts, src/y.ts and 2 more". */
function overlapLine(o: OverlapRow): Line {
  const shown = o.files.slice(0, OVERLAP_FILES_ON_HOME);
  const more = o.files.length - shown.length;
  const files = shown.flatMap((f, i) => (i === 0 ? [mono(f)] : [txt(', '), mono(f)]));
  return [
    txt('⚠️ '),
    bold(o.tasks[0].title),
    txt(' and '),
    bold(o.tasks[1].title),
    txt(` · ${o.projectId} · both touch `),
    ...files,
    ...(more > 0 ? [txt(` and ${more} more`)] : []),
  ];
}

export function needsYou(data: HomeData): KnownBlock[] {
  const overlaps = data.overlaps ?? [];
  if (data.attentionTotal === 0 && overlaps.length === 0) return [];
  const blocks: KnownBlock[] = [
    { type: 'divider' },
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: `*Needs you* · ${data.attentionTotal}${overlaps.length ? ` · ${plural(overlaps.length, 'overlap')}` : ''}`,
      },
    },
  ];
  if (overlaps.length > 0) blocks.push(richLines(overlaps.map(overlapLine)));
  for (const t of data.attention) {
    const lines: Line[] = [attentionLine(t)];
    if (t.detail) lines.push([italic(firstLine(t.detail))]);
    if (t.prUrl) lines.push([txt('Pull request: '), link(t.prUrl)]);
    if (t.train) lines.push(trainPlaceLine(t.train));
    blocks.push(richLines(lines));
    if (t.status === 'WAITING_INPUT') {
      blocks.push(row(stopTaskButton(t.id, t.title)));
    } else if (t.status === 'AWAITING_APPROVAL' && t.train) {
      // Approved already, waiting to land: only a restart is left to a person.
      blocks.push(row(button('Restart', TASK_BUTTONS.restart, t.id)));
    } else if (t.status === 'AWAITING_APPROVAL') {
      blocks.push(
        row(
          button('Approve', TASK_BUTTONS.approve, t.id, 'primary'),
          button('Request changes', REQUEST_CHANGES_BUTTONS.open, t.id),
          button('Restart', TASK_BUTTONS.restart, t.id),
        ),
      );
    } else {
      blocks.push(
        row(
          button('Restart', TASK_BUTTONS.restart, t.id, 'primary'),
          button('Skip', TASK_BUTTONS.skip, t.id),
          button('View error', TASK_BUTTONS.agentError, t.id),
        ),
      );
    }
  }
  const more = data.attentionTotal - data.attention.length;
  if (more > 0)
    blocks.push(
      contextLine(
        `${plural(more, 'more task')} need${more === 1 ? 's' : ''} you: \`/aq list_tasks status=FAILED\` (or BLOCKED, AWAITING_APPROVAL) lists them.`,
      ),
    );
  return blocks;
}

function runningLine(t: RunningRow, now: number): Line[] {
  const facts = [
    t.projectId,
    t.agent ? `agent ${t.agent}` : null,
    t.startedAt ? `for ${formatDuration(now - t.startedAt.getTime())}` : null,
  ]
    .filter(Boolean)
    .join(' · ');
  const lines: Line[] = [[txt(`${emoji('IN_PROGRESS')} `), bold(t.title), txt(` · ${facts}`)]];
  if (t.lastProgress) lines.push([italic(firstLine(t.lastProgress, 150))]);
  return lines;
}

export function running(data: HomeData, now = Date.now()): KnownBlock[] {
  const blocks: KnownBlock[] = [
    { type: 'divider' },
    { type: 'section', text: { type: 'mrkdwn', text: `*Running* · ${data.runningTotal || 'nothing right now'}` } },
  ];
  for (const t of data.running) blocks.push(richLines(runningLine(t, now)), row(stopTaskButton(t.id, t.title)));
  const more = data.runningTotal - data.running.length;
  if (more > 0) blocks.push(contextLine(`${plural(more, 'more task')} running: \`/aq list_tasks status=IN_PROGRESS\``));
  return blocks;
}

export function readyQueue(data: HomeData): KnownBlock[] {
  const blocks: KnownBlock[] = [
    { type: 'divider' },
    { type: 'section', text: { type: 'mrkdwn', text: `*Ready queue* · ${data.readyTotal || 'empty'}` } },
  ];
  if (data.ready.length) {
    blocks.push(richLines(data.ready.map((t, i): Line => [txt(`${i + 1}. `), bold(t.title), txt(` · ${t.projectId}`)])));
  }
  const more = data.readyTotal - data.ready.length;
  if (more > 0) blocks.push(contextLine(`${plural(more, 'more task')} waiting: \`/aq list_tasks status=READY\``));
  // Why the queue is not moving, once per reason (the scheduler's own words).
  const reasons = [...new Set(data.ready.map((t) => t.waiting).filter((w): w is string => !!w))].slice(0, 3);
  for (const reason of reasons)
    blocks.push({ type: 'context', elements: [{ type: 'plain_text', text: clip(`⏳ Not starting: ${reason}`, 2000), emoji: true }] });
  return blocks;
}

export function pausedProjects(data: HomeData, cap: number): KnownBlock[] {
  if (data.pausedProjects.length === 0) return [];
  const blocks: KnownBlock[] = [
    { type: 'divider' },
    { type: 'section', text: { type: 'mrkdwn', text: `*Paused projects* · ${data.pausedProjects.length}` } },
  ];
  for (const p of data.pausedProjects.slice(0, cap)) {
    const id = p.name === p.id ? [] : [txt(' · '), mono(p.id)];
    blocks.push(richLines([[txt('⏸️ '), bold(p.name), ...id]]), row(button('Resume project', HOME_BUTTONS.resumeProject, p.id)));
  }
  if (data.pausedProjects.length > cap) blocks.push(contextLine(`${data.pausedProjects.length - cap} more paused: \`/aq list_projects\``));
  return blocks;
}

/** Within the Home's block limit whatever the data (each section is already capped). */
export const HOME_BLOCK_LIMIT = LIMITS.blocksPerHome;
