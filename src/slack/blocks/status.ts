import type { KnownBlock } from '@slack/types';
import type { ResultOf } from '../../commands/catalog';
import type { getStatus } from '../../commands/status';
import { context, emoji, header, LIMITS, section, statusWord, type Rendered } from './common';
import { fitBlocks } from './long';
import { bold, mono, packRich, plainContext, txt, type Line } from './text';

/** get_status's result, as the command declares it. */
type StatusResult = ResultOf<typeof getStatus>;

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** A task as a literal line: emoji, id, title, project. */
function taskLine(mark: string, t: { id: string; title: string; project_id: string }): Line {
  return [txt(`${mark} `), mono(t.id), txt(` ${t.title} (${t.project_id})`)];
}

/** get_status as blocks: paused banner, counts in words, agents, running and ready work (all listed). */
export function statusBlocks(s: StatusResult): Rendered {
  const blocks: KnownBlock[] = [header('Agent Queue status')];
  if (s.orchestrator_paused)
    blocks.push(
      section(':double_vertical_bar: *Scheduling is paused* — no new tasks start. Resume with `/aq orchestrator_control action=resume`.'),
    );
  const counts = Object.entries(s.tasks.by_status)
    .map(([status, n]) => `${emoji(status)} ${n} ${statusWord(status)}`)
    .join('   ');
  blocks.push(section(`*${plural(s.tasks.total, 'task')}* in *${plural(s.projects, 'project')}*\n${counts || 'No tasks yet.'}`));
  const agentLines: Line[] = s.agents.map((a) => [
    txt(`${emoji(a.state)} `),
    bold(a.name),
    ...(a.working_on ? [txt(' — '), mono(a.working_on.task_id), txt(` ${a.working_on.title}`)] : [txt(` — ${statusWord(a.state)}`)]),
  ]);
  if (agentLines.length) blocks.push(...packRich([[bold('Agents')], ...agentLines], LIMITS.richText));
  else blocks.push(section('*Agents*\nNo agents yet — add one with `/aq create_agent name=…`.'));
  if (s.tasks.in_progress.length)
    blocks.push(...packRich([[bold('Running')], ...s.tasks.in_progress.map((t) => taskLine('🟡', t))], LIMITS.richText));
  if (s.tasks.ready_to_work.length)
    blocks.push(...packRich([[bold('Ready to start')], ...s.tasks.ready_to_work.map((t) => taskLine('🔵', t))], LIMITS.richText));
  const refused = Object.entries(s.slack_features ?? {}).filter(([, f]) => f?.mode === 'fallback');
  if (refused.length)
    // Small print: it explains how replies look, and matters to whoever set up the Slack app.
    blocks.push(
      plainContext(
        `ℹ️ Classic messages instead of Slack's ${refused.map(([name, f]) => `${name.replace(/_/g, ' ')} (${f?.slack_error})`).join(', ')}`,
      ),
    );
  blocks.push(context(`Updated ${new Date().toISOString().replace('T', ' ').slice(0, 16)} UTC`));
  const fitted = fitBlocks(blocks, () => JSON.stringify(s, null, 2), 'status.json');
  return {
    text: `${plural(s.tasks.total, 'task')}, ${plural(s.agents.length, 'agent')}${s.orchestrator_paused ? ', scheduling paused' : ''}`,
    blocks: fitted.blocks,
    ...(fitted.file && { files: [fitted.file] }),
  };
}
