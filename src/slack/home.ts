import type { KnownBlock } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { CommandHandler } from '../commands/handler';
import { capBlocks, context, esc, LIMITS } from './blocks/common';
import { HOME_CAPS, loadHomeData, type Execute, type HomeData } from './home-data';
import { firstSteps, homeHeader, needsYou, pausedProjects, readyQueue, running } from './blocks/home-sections';
import { workersSection } from './blocks/home-workers';
import { automationsSection } from './blocks/home-automations';
import { mergeTrainSection } from './blocks/home-merge-train';

/** What the Home needs from the process: a command handler (the Runtime has one). */
export interface HomeSource {
  handler: Pick<CommandHandler, 'executeAny'>;
}

export interface HomeView {
  type: 'home';
  blocks: KnownBlock[];
}

const executeAsApp =
  (source: HomeSource): Execute =>
  (name, args = {}) =>
    source.handler.executeAny(name, args, { source: 'system' });

/**
 * The App Home dashboard, top-down by urgency: what needs a person, what is running, the ready
 * queue, paused projects. A fresh install gets its first steps instead of empty sections.
 * `note` (our own mrkdwn) tells the viewer what their last click did.
 */
export async function homeView(source: HomeSource, note?: string): Promise<HomeView> {
  let data: HomeData;
  try {
    data = await loadHomeData(executeAsApp(source));
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return { type: 'home', blocks: [context(`:warning: The dashboard could not be loaded: ${esc(why)}. Open the tab again in a moment.`)] };
  }
  return { type: 'home', blocks: homeBlocks(data, note) };
}

/** The Home's blocks for data already loaded. */
export function homeBlocks(data: HomeData, note?: string, now = new Date()): KnownBlock[] {
  const blocks: KnownBlock[] = [...homeHeader(data, note), ...firstSteps(data)];
  const hasWork = Object.values(data.byStatus).some((n) => n > 0);
  if (hasWork) blocks.push(...needsYou(data), ...mergeTrainSection(data), ...running(data, now.getTime()), ...readyQueue(data));
  blocks.push(...pausedProjects(data, HOME_CAPS.paused));
  blocks.push(...workersSection(data, HOME_CAPS.workers));
  blocks.push(...automationsSection(data, HOME_CAPS.automations));
  blocks.push(context(`Updated ${now.toISOString().replace('T', ' ').slice(0, 16)} UTC`));
  return capBlocks(blocks, LIMITS.blocksPerHome);
}

/** Publishes the Home for one person; failures are logged, never thrown (the Home is best effort). */
export async function publishHome(
  client: WebClient,
  source: HomeSource,
  userId: string,
  note?: string,
  log: (m: string) => void = () => undefined,
): Promise<void> {
  try {
    await client.views.publish({ user_id: userId, view: await homeView(source, note) });
  } catch (err) {
    log(`Publishing the App Home for ${userId} failed: ${(err as { data?: { error?: string } }).data?.error ?? String(err)}`);
  }
}
