import type { KnownBlock } from '@slack/types';
import { context, emoji, esc, header, section, type Rendered } from './common';

interface StatusResult {
  projects: number;
  agents: Array<{ id: string; name: string; state: string; working_on?: { task_id: string; title: string; project_id: string } }>;
  tasks: { total: number; by_status: Record<string, number>; in_progress: Array<{ id: string; title: string; project_id: string; assigned_agent: string | null }>; ready_to_work: Array<{ id: string; title: string; project_id: string }> };
  orchestrator_paused: boolean;
}

/** get_status as blocks: paused banner, counts, agents, running and ready work. */
export function statusBlocks(raw: Record<string, unknown>): Rendered {
  const s = raw as unknown as StatusResult;
  const blocks: KnownBlock[] = [header('Agent Queue status')];
  if (s.orchestrator_paused) blocks.push(section(':double_vertical_bar: *Scheduling is paused* — no new tasks start. Resume with `/aq orchestrator_control action=resume`.'));
  const counts = Object.entries(s.tasks.by_status)
    .map(([status, n]) => `${emoji(status)} ${status} ${n}`)
    .join('   ');
  blocks.push(section(`*${s.tasks.total}* tasks in *${s.projects}* projects\n${counts || 'No tasks yet.'}`));
  const agents = s.agents.length
    ? s.agents.map((a) => `${emoji(a.state)} *${esc(a.name)}* — ${a.working_on ? `\`${esc(a.working_on.task_id)}\` ${esc(a.working_on.title)}` : a.state.toLowerCase()}`).join('\n')
    : 'No agents yet — add one with `/aq create_agent name=…`.';
  blocks.push(section(`*Agents*\n${agents}`));
  if (s.tasks.in_progress.length) {
    blocks.push(section(`*In progress*\n${s.tasks.in_progress.map((t) => `🟡 \`${esc(t.id)}\` ${esc(t.title)} (${esc(t.project_id)})`).join('\n')}`));
  }
  if (s.tasks.ready_to_work.length) {
    blocks.push(section(`*Ready to work*\n${s.tasks.ready_to_work.map((t) => `🔵 \`${esc(t.id)}\` ${esc(t.title)} (${esc(t.project_id)})`).join('\n')}`));
  }
  blocks.push(context(`Updated ${new Date().toISOString().replace('T', ' ').slice(0, 16)} UTC`));
  return { text: `${s.tasks.total} tasks, ${s.agents.length} agents${s.orchestrator_paused ? ', scheduling paused' : ''}`, blocks };
}
