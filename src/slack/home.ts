import type { KnownBlock } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { CommandHandler } from '../commands/handler';
import type { SystemStateRepository } from '../db/repositories/system-state';
import { capBlocks, context, esc, LIMITS } from './blocks/common';
import { HOME_CAPS, loadHomeData, type Execute, type HomeData } from './home-data';
import { firstSteps, homeHeader, needsYou, pausedProjects, readyQueue, running } from './blocks/home-sections';
import { workersSection } from './blocks/home-workers';
import { automationsSection } from './blocks/home-automations';
import { mergeTrainSection } from './blocks/home-merge-train';
import { HOME_TABLE_ROWS, readyQueueTable } from './blocks/home-queue-table';
import { FALLBACK_ERRORS, slackErrorCode, slackFeaturesFor } from './ai-surfaces/features';
import { errorMessage } from '../util/error-message';

/** What the Home needs from the process: a command handler (the Runtime has one). */
export interface HomeSource {
  handler: Pick<CommandHandler, 'executeAny'>;
}

/** What publishing it needs besides: where Slack's answers about the data_table are kept. */
export interface HomePublisher extends HomeSource {
  db: { state: Pick<SystemStateRepository, 'get' | 'set'> };
}

/** How the Home shows its ready queue: sections (ten tasks) or a data_table (a hundred). */
export interface HomeLayout {
  table?: boolean;
}

/**
 * Slack's answers to a Home with a data_table that mean "not here": a workspace (or client
 * generation) without the block answers invalid_blocks, as it does for any block it does not know.
 */
const TABLE_REFUSALS = new Set([...FALLBACK_ERRORS, 'invalid_blocks', 'invalid_arguments']);

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
export async function homeView(source: HomeSource, note?: string, layout: HomeLayout = {}): Promise<HomeView> {
  let data: HomeData;
  try {
    data = await loadHomeData(executeAsApp(source), layout.table ? { readyRows: HOME_TABLE_ROWS } : {});
  } catch (err) {
    const why = errorMessage(err);
    return { type: 'home', blocks: [context(`:warning: The dashboard could not be loaded: ${esc(why)}. Open the tab again in a moment.`)] };
  }
  return { type: 'home', blocks: homeBlocks(data, note, new Date(), layout) };
}

/** The Home's blocks for data already loaded. */
export function homeBlocks(data: HomeData, note?: string, now = new Date(), layout: HomeLayout = {}): KnownBlock[] {
  const blocks: KnownBlock[] = [...homeHeader(data, note), ...firstSteps(data)];
  const hasWork = Object.values(data.byStatus).some((n) => n > 0);
  if (hasWork)
    blocks.push(
      ...needsYou(data),
      ...mergeTrainSection(data),
      ...running(data, now.getTime()),
      ...(layout.table ? readyQueueTable(data) : readyQueue(data)),
    );
  blocks.push(...pausedProjects(data, HOME_CAPS.paused));
  blocks.push(...workersSection(data, HOME_CAPS.workers));
  blocks.push(...automationsSection(data, HOME_CAPS.automations));
  blocks.push(context(`Updated ${now.toISOString().replace('T', ' ').slice(0, 16)} UTC`));
  return capBlocks(blocks, LIMITS.blocksPerHome);
}

/**
 * Publishes the Home for one person, its ready queue as a data_table where the workspace takes
 * one (home_data_table); a refusal is noticed once and the sections are published instead.
 * Failures are logged, never thrown (the Home is best effort).
 */
export async function publishHome(
  client: WebClient,
  source: HomePublisher,
  userId: string,
  note?: string,
  log: (m: string) => void = () => undefined,
): Promise<void> {
  const features = slackFeaturesFor(source.db.state, log);
  try {
    const table = await features.usable('home_data_table');
    // Only a refusal being tried again (a day on) is worth writing over; each Home is not.
    const recheck = table && (await features.refusedBefore('home_data_table'));
    const view = await homeView(source, note, { table });
    const hasTable = view.blocks.some((b) => b.type === 'data_table');
    try {
      await client.views.publish({ user_id: userId, view });
      if (hasTable && recheck) await features.confirmNative('home_data_table');
    } catch (err) {
      const code = slackErrorCode(err);
      if (!hasTable || !code || !TABLE_REFUSALS.has(code)) throw err;
      // Recorded first, so a Home opened meanwhile gets the sections too.
      await features.fallBack('home_data_table', 'views.publish', code);
      await client.views.publish({ user_id: userId, view: await homeView(source, note) });
    }
  } catch (err) {
    log(`Publishing the App Home for ${userId} failed: ${slackErrorCode(err) ?? String(err)}`);
  }
}
