import type { KnownBlock } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { EventRecord } from '../db/repositories/events';
import type { Runtime } from '../runtime';
import { button, context, esc, section } from './blocks/common';
import { taskButtons } from './blocks/tasks';
import { markdownToMrkdwn } from './mrkdwn';

const PROGRESS_INTERVAL_MS = 3000;

type Post = { text: string; blocks?: KnownBlock[]; broadcast?: boolean };

/** How an event reads in its task thread (null: not posted). */
function describe(event: EventRecord): Post | null {
  const p = event.payload as Record<string, unknown>;
  const title = esc(p.title ?? event.taskId ?? '');
  const id = event.taskId ?? '';
  switch (event.type) {
    case 'task_completed':
      return {
        text: `✅ Task completed: ${title}`,
        blocks: [
          section(`✅ *Task completed* — ${title}${p.approved ? ' (approved)' : ''}`),
          ...(typeof p.summary === 'string' && p.summary ? [section(markdownToMrkdwn(p.summary))] : []),
          ...(p.tokens ? [context(`${esc(p.tokens)} tokens${p.cost_usd ? ` · $${Number(p.cost_usd).toFixed(4)}` : ''}${p.branch ? ` · ${esc(p.branch)}` : ''}`)] : []),
        ],
        broadcast: true,
      };
    case 'task_failed': {
      const actions = taskButtons(id, 'FAILED');
      return {
        text: `🔴 Task failed: ${title}`,
        blocks: [
          section(`🔴 *Task failed* — ${title} (try ${esc(p.retry_count ?? '?')} of ${esc(p.max_retries ?? '?')})\n*${esc(p.error_type ?? 'Error')}*: ${esc(String(p.error ?? '')).slice(0, 400)}`),
          ...(p.suggested_fix ? [context(`💡 ${esc(p.suggested_fix)}`)] : []),
          ...(actions ? [actions] : []),
        ],
      };
    }
    case 'task_blocked': {
      const actions = taskButtons(id, 'BLOCKED');
      return { text: `⛔ Task blocked: ${title}`, blocks: [section(`⛔ *Task blocked* — ${title}${p.reason ? `\n${esc(p.reason)}` : ''}`), ...(actions ? [actions] : [])], broadcast: true };
    }
    case 'task_awaiting_approval':
      return {
        text: `⏳ Awaiting approval: ${title}`,
        blocks: [
          section(`⏳ *Awaiting approval* — ${title}${p.pr_url ? `\nPull request: <${String(p.pr_url)}>` : ''}${p.note ? `\n${esc(p.note)}` : ''}`),
          { type: 'actions', elements: [button('Approve', 'aq_approve_task', id, 'primary'), button('Skip', 'aq_skip_task', id)] },
        ],
        broadcast: true,
      };
    case 'pr_created':
      return { text: `🔀 Pull request opened: ${String(p.pr_url ?? '')}` };
    case 'chain_stuck': {
      const stuck = Array.isArray(p.stuck_downstream) ? (p.stuck_downstream as Array<{ id: string; title: string }>) : [];
      return { text: `⛓️ Chain stuck behind ${title}: ${stuck.length} task(s) waiting`, blocks: [section(`⛓️ *Chain stuck* behind ${title}\n${stuck.slice(0, 20).map((s) => `• \`${esc(s.id)}\` ${esc(s.title)}`).join('\n')}`)] };
    }
    case 'task_paused':
      return { text: `⏸️ Paused: ${esc(p.reason ?? '')}${p.resume_after ? ` — resumes at ${esc(p.resume_after)}` : ''}` };
    case 'task_stopped':
      return { text: '⏹️ Stopped.' };
    case 'task_retrying':
      return { text: `🔁 Retrying${p.reason ? `: ${esc(p.reason)}` : ''}` };
    case 'merge_failed':
      return { text: `⚠️ Merge failed: ${esc(p.message ?? '')}` };
    case 'plan_tasks_created': {
      const tasks = Array.isArray(p.tasks) ? (p.tasks as Array<{ id: string; title: string }>) : [];
      return { text: `🗺️ Plan turned into ${tasks.length} task(s):\n${tasks.map((t) => `• \`${esc(t.id)}\` ${esc(t.title)}`).join('\n')}` };
    }
    default:
      return null;
  }
}

/**
 * Posts task events to the project's channel: task_started opens a thread (with a Stop button),
 * later events of that task reply in it. Progress is batched; Slack errors are logged, never thrown.
 */
export class SlackNotifier {
  private readonly progress = new Map<string, { lines: string[]; timer: NodeJS.Timeout | null }>();
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly runtime: Runtime,
    private readonly client: WebClient,
    private readonly log: (message: string) => void = (m) => console.error(m),
  ) {}

  start(): () => void {
    return this.runtime.events.subscribe((event) => {
      this.queue = this.queue.then(() => this.handle(event)).catch((err) => this.log(`Slack notification failed for ${event.type}: ${String(err)}`));
    });
  }

  /** Resolves when everything queued so far has been posted. */
  async idle(): Promise<void> {
    await this.queue;
  }

  private async channelFor(projectId: string | null): Promise<string | null> {
    if (!projectId) return this.runtime.config.slack.notifyChannel ?? null;
    const project = await this.runtime.db.projects.get(projectId);
    return project?.chatChannelId ?? this.runtime.config.slack.notifyChannel ?? null;
  }

  private async handle(event: EventRecord): Promise<void> {
    if (event.type === 'daemon_restart') {
      const channel = this.runtime.config.slack.notifyChannel;
      if (channel) await this.client.chat.postMessage({ channel, text: markdownToMrkdwn(String(event.payload.message ?? 'Restarting')) });
      return;
    }
    if (event.type === 'hook_run_completed' || event.type === 'hook_run_failed') return this.postHookResult(event);
    if (!event.taskId) return;
    const channel = await this.channelFor(event.projectId);
    if (!channel) return;
    if (event.type === 'task_started') return this.openThread(event, channel);
    if (event.type === 'task_progress') return this.bufferProgress(event);
    const post = describe(event);
    if (!post) return;
    const thread = await this.runtime.db.taskThreads.get(event.taskId);
    const base = { channel: thread?.channelId ?? channel, text: post.text, ...(post.blocks && { blocks: post.blocks }) };
    await this.client.chat.postMessage(
      thread ? { ...base, thread_ts: thread.threadTs, reply_broadcast: post.broadcast === true } : base,
    );
  }

  private async postHookResult(event: EventRecord): Promise<void> {
    const channel = await this.channelFor(event.projectId);
    if (!channel) return;
    const p = event.payload as Record<string, unknown>;
    const ok = event.type === 'hook_run_completed';
    const heading = `🪝 Hook *${esc(p.hook_name ?? p.hook_id)}* ${ok ? 'ran' : 'failed'}${p.tokens_used ? ` · ${esc(p.tokens_used)} tokens` : ''}`;
    const response = typeof p.response === 'string' && p.response ? markdownToMrkdwn(p.response) : '';
    await this.client.chat.postMessage({
      channel,
      text: `🪝 Hook ${String(p.hook_name ?? p.hook_id)} ${ok ? 'ran' : 'failed'}`,
      blocks: [section(heading), ...(response ? [section(response)] : [])],
    });
  }

  private async openThread(event: EventRecord, channel: string): Promise<void> {
    const p = event.payload as Record<string, unknown>;
    const id = event.taskId!;
    const text = `🟡 *${esc(p.title ?? id)}* started (\`${esc(id)}\`)${p.agent_name ? ` — ${esc(p.agent_name)}` : ''}${p.branch ? ` on \`${esc(p.branch)}\`` : ''}`;
    const posted = await this.client.chat.postMessage({
      channel,
      text: `🟡 ${String(p.title ?? id)} started`,
      blocks: [section(text), { type: 'actions', elements: [button('Stop', 'aq_stop_task', id, 'danger')] }],
    });
    if (posted.ts) await this.runtime.db.taskThreads.save(id, channel, posted.ts);
  }

  private bufferProgress(event: EventRecord): void {
    const id = event.taskId!;
    const entry = this.progress.get(id) ?? { lines: [], timer: null };
    entry.lines.push(String(event.payload.text ?? ''));
    this.progress.set(id, entry);
    if (entry.timer) return;
    entry.timer = setTimeout(() => {
      this.progress.delete(id);
      this.queue = this.queue.then(async () => {
        const thread = await this.runtime.db.taskThreads.get(id);
        if (!thread) return;
        const text = entry.lines.filter(Boolean).join('\n').slice(0, 2900);
        if (text) await this.client.chat.postMessage({ channel: thread.channelId, thread_ts: thread.threadTs, text });
      }).catch((err) => this.log(`Progress post failed: ${String(err)}`));
    }, PROGRESS_INTERVAL_MS);
    entry.timer.unref();
  }
}
