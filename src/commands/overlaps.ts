import { z } from 'zod';
import type { OverlapRecord } from '../db/repositories/task-overlaps';
import { LIVE_TASK_STATUSES } from '../db/repositories/touched-files';
import { CommandError, defineCommand, type CommandContext } from './catalog';
import { pageFields, pageOf, sliceOf, type ListPaging } from './paging';
import { requireProject } from './projects';
import { settleAll } from '../util/settle-all';

const OVERLAP_LIST: ListPaging = { key: 'overlaps', defaultLimit: 50, maxLimit: 500 };

/** One task of an overlap as get_overlaps shows it. */
export interface OverlapTaskView {
  id: string;
  title: string;
  status: string;
  agent: string | null;
}

export interface OverlapView {
  project_id: string;
  /** The repository both tasks work in; null for the project's own checkout. */
  repo_id: string | null;
  tasks: [OverlapTaskView, OverlapTaskView];
  files: string[];
  file_count: number;
  detected_at: string;
  updated_at: string;
}

const LIVE = new Set<string>(LIVE_TASK_STATUSES);

async function view(o: OverlapRecord, ctx: CommandContext): Promise<OverlapView | null> {
  const [a, b] = await settleAll([ctx.db.tasks.get(o.taskA), ctx.db.tasks.get(o.taskB)]);
  // Between a task settling and the radar's next sweep, its overlap row is already over.
  if (!a || !b || !LIVE.has(a.status) || !LIVE.has(b.status)) return null;
  const side = (t: NonNullable<typeof a>): OverlapTaskView => ({ id: t.id, title: t.title, status: t.status, agent: t.assignedAgent });
  return {
    project_id: o.projectId,
    repo_id: o.repoKey || null,
    tasks: [side(a), side(b)],
    files: o.files,
    file_count: o.files.length,
    detected_at: new Date(o.detectedAt).toISOString(),
    updated_at: new Date(o.updatedAt).toISOString(),
  };
}

export const getOverlaps = defineCommand({
  name: 'get_overlaps',
  group: 'tasks',
  kind: 'read',
  description:
    'Live overlaps found by the conflict radar: pairs of running or unmerged tasks of one repository that touched the same files, with the tasks and the files. Optionally for one project or one repository.',
  input: () =>
    z.object({
      project_id: z.string().optional().describe('Only this project'),
      repo_id: z.string().optional().describe('Only this repository (see list_repos)'),
      ...pageFields(OVERLAP_LIST),
    }),
  list: OVERLAP_LIST,
  async run(args, ctx) {
    const { project_id, repo_id } = args;
    if (project_id) await requireProject(ctx, project_id);
    let projectId = project_id;
    if (repo_id) {
      const repo = await ctx.db.repos.get(repo_id);
      if (!repo) throw new CommandError(`Repo '${repo_id}' not found. List them with /aq list_repos.`);
      if (project_id && repo.projectId !== project_id) {
        throw new CommandError(
          `Repo '${repo.id}' belongs to project '${repo.projectId}', not '${project_id}'. Pick one of its repos (/aq list_repos project_id=${project_id}).`,
        );
      }
      projectId = repo.projectId;
    }
    // Live overlaps are few (pairs of running tasks): read whole, paged here.
    const rows = await ctx.db.overlaps.list({ projectId, ...(repo_id && { repoKey: repo_id }) });
    const live = (await settleAll(rows.map((o) => view(o, ctx)))).filter((o): o is OverlapView => o !== null);
    const page = sliceOf(live, pageOf(args, OVERLAP_LIST.defaultLimit));
    return { overlaps: page.items, total: page.total, next_offset: page.next_offset };
  },
});

export const overlapCommands = [getOverlaps];
