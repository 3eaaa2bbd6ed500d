import type { KnownBlock } from '@slack/types';
import type { Runtime } from '../runtime';
import { button, capBlocks, context, esc, LIMITS, section } from './blocks/common';
import { statusBlocks } from './blocks/status';

const APPROVAL_LIMIT = 15;

/** The App Home dashboard: status, tasks awaiting approval (with buttons), paused projects. */
export async function homeView(runtime: Runtime): Promise<{ type: 'home'; blocks: KnownBlock[] }> {
  const actor = { source: 'system' as const };
  const status = await runtime.handler.execute('get_status', {}, actor);
  const blocks: KnownBlock[] = [...statusBlocks(status).blocks, { type: 'actions', elements: [button('➕ New task', 'aq_open_new_task', 'new', 'primary')] }];
  const awaiting = (await runtime.handler.execute('list_tasks', { status: 'AWAITING_APPROVAL' }, actor)) as {
    tasks: Array<{ id: string; title: string; project_id: string }>;
    total: number;
  };
  blocks.push({ type: 'divider' }, section(`*Awaiting approval* (${awaiting.total})`));
  if (awaiting.total === 0) blocks.push(context('Nothing is waiting for you.'));
  for (const t of awaiting.tasks.slice(0, APPROVAL_LIMIT)) {
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: `⏳ \`${esc(t.id)}\` *${esc(t.title)}* (${esc(t.project_id)})` },
      accessory: button('Approve', 'aq_approve_task', t.id, 'primary'),
    });
    blocks.push({ type: 'actions', elements: [button('Skip', 'aq_skip_task', t.id)] });
  }
  const projects = (await runtime.handler.execute('list_projects', {}, actor)) as { projects: Array<{ id: string; name: string; status: string }> };
  const paused = projects.projects.filter((p) => p.status === 'PAUSED');
  if (paused.length) {
    blocks.push({ type: 'divider' }, section(`*Paused projects*\n${paused.map((p) => `⏸️ ${esc(p.name)} (\`${esc(p.id)}\`)`).join('\n')}`));
  }
  return { type: 'home', blocks: capBlocks(blocks, LIMITS.blocksPerHome) };
}
