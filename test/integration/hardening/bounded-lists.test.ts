// @database-dependent: every list is bounded by a LIMIT in SQL.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AnyCommand } from '../../../src/commands/catalog';
import { ALL_COMMANDS } from '../../../src/commands';
import { renderResult } from '../../../src/slack/blocks/render';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { fieldsOf } from './catalog-inputs';

/**
 * Costs stay flat as history grows (issue 13): every reply that is a list that can grow is a
 * page. Commands say so with a `list` descriptor; for each one this test seeds more items than
 * its default limit and checks that the reply is one page, that total counts them all, and that
 * following next_offset reaches every item exactly once. A second test runs every read-only
 * command over that world and refuses any array in a reply that is neither paged nor given a
 * fixed bound below, so a new list command is caught without new test code.
 */

type Reply = Record<string, unknown>;
type Seeder = (rt: TestRuntime, count: number) => Promise<Reply>;

const now = Date.now();
const values = (count: number, row: (i: number) => string) => Array.from({ length: count }, (_, i) => row(i)).join(', ');
const sql = (rt: TestRuntime, text: string) => rt.db.em().getConnection().execute(text);

/** Inserts `count` tasks of project `seed` with ids `<prefix>-<i>`. */
async function insertTasks(rt: TestRuntime, prefix: string, count: number, status: string): Promise<void> {
  await sql(
    rt,
    `insert into tasks (id, project_id, title, description, status, priority, created_at, updated_at) values ${values(
      count,
      (i) => `('${prefix}-${i}', 'seed', 'Task ${i}', 'd', '${status}', ${i % 5}, ${now + i}, ${now + i})`,
    )}`,
  );
}

async function seedNotes(rt: TestRuntime, count: number): Promise<void> {
  const dir = path.join(rt.config.workspaceDir, 'seed', 'notes');
  await mkdir(dir, { recursive: true });
  for (let i = 0; i < count; i++) await writeFile(path.join(dir, `note-${String(i).padStart(4, '0')}.md`), `# Note ${i}\n`);
}

/**
 * How to fill the world with `count` items of each paged list, and the arguments that list
 * them. Every command with a `list` descriptor needs one (the first test says which is missing).
 */
const SEEDERS: Record<string, Seeder> = {
  list_projects: async (rt, count) => {
    await sql(
      rt,
      `insert into projects (id, name, workspace, created_at, updated_at) values ${values(count, (i) => `('p-${i}', 'P ${i}', '/tmp/p-${i}', ${now + i}, ${now + i})`)}`,
    );
    return {};
  },
  list_agents: async (rt, count) => {
    await sql(rt, `insert into agents (id, name, created_at) values ${values(count, (i) => `('a-${i}', 'A ${i}', ${now + i})`)}`);
    return {};
  },
  list_workers: async (rt, count) => {
    await sql(
      rt,
      `insert into workers (name, host, capacity, labels, started_at, heartbeat_at) values ${values(count, (i) => `('w-${i}', 'h', 2, '[]', ${now}, ${now + i})`)}`,
    );
    return {};
  },
  list_repos: async (rt, count) => {
    await sql(
      rt,
      `insert into repos (id, project_id, name, source_type, created_at) values ${values(count, (i) => `('r-${i}', 'seed', 'r-${i}', 'init', ${now + i})`)}`,
    );
    return { project_id: 'seed' };
  },
  list_workspaces: async (rt, count) => {
    await sql(
      rt,
      `insert into workspaces (id, project_id, name, path, created_at) values ${values(count, (i) => `('w-${i}', 'seed', 'w-${i}', '/tmp/w-${i}', ${now + i})`)}`,
    );
    return { project_id: 'seed' };
  },
  list_hooks: async (rt, count) => {
    await sql(
      rt,
      `insert into hooks (id, project_id, name, "trigger", context_steps, prompt_template, created_at, updated_at) values ${values(
        count,
        (i) => `('h-${i}', 'seed', 'H ${i}', '{"type":"periodic","interval_seconds":60}', '[]', 'p', ${now + i}, ${now + i})`,
      )}`,
    );
    return { project_id: 'seed' };
  },
  list_hook_runs: async (rt, count) => {
    await sql(
      rt,
      `insert into hook_runs (id, hook_id, project_id, trigger_reason, started_at) values ${values(count, (i) => `('run-${i}', 'h-0', 'seed', 'periodic', ${now + i})`)}`,
    );
    return { hook_id: 'h-0' };
  },
  list_automations: async (rt, count) => {
    await sql(
      rt,
      `insert into automations (id, name, kind, project_id, task_template, settings, created_at, updated_at) values ${values(
        count,
        (i) => `('a-${i}', 'A ${i}', 'webhook', 'seed', '{}', '{}', ${now + i}, ${now + i})`,
      )}`,
    );
    return { project_id: 'seed' };
  },
  list_automation_runs: async (rt, count) => {
    await sql(
      rt,
      `insert into automation_runs (automation_id, at, fired_by, outcome) values ${values(count, (i) => `('a-0', ${now + i}, 'manual', 'skipped')`)}`,
    );
    return { automation_id: 'a-0' };
  },
  list_tasks: async (rt, count) => {
    await insertTasks(rt, 'listed', count, 'FAILED');
    return { status: 'FAILED' };
  },
  get_recent_events: async (rt, count) => {
    await sql(rt, `insert into events (type, project_id, created_at) values ${values(count, () => `('task_created', 'seed', ${now})`)}`);
    return {};
  },
  get_token_usage: async (rt, count) => {
    await insertTasks(rt, 'used', count, 'COMPLETED');
    await sql(
      rt,
      `insert into token_usage (project_id, task_id, agent_id, tokens, created_at) values ${values(count, (i) => `('seed', 'used-${i}', 'a-0', ${i + 1}, ${now})`)}`,
    );
    return { project_id: 'seed' };
  },
  get_task_dependencies: async (rt, count) => {
    await insertTasks(rt, 'dependent', count, 'DEFINED');
    await sql(rt, `insert into task_dependencies (task_id, depends_on_id) values ${values(count, (i) => `('dependent-${i}', 'root-0')`)}`);
    return { task_id: 'root-0' };
  },
  get_chain_health: async (rt, count) => {
    await insertTasks(rt, 'held', count, 'BLOCKED');
    await insertTasks(rt, 'behind', count, 'DEFINED');
    await sql(rt, `insert into task_dependencies (task_id, depends_on_id) values ${values(count, (i) => `('behind-${i}', 'held-${i}')`)}`);
    return { project_id: 'seed' };
  },
  list_notes: async (rt, count) => {
    await seedNotes(rt, count);
    return { project_id: 'seed' };
  },
  compare_specs_notes: async (rt, count) => {
    await seedNotes(rt, count);
    return { project_id: 'seed' };
  },
  get_overlaps: async (rt, count) => {
    await insertTasks(rt, 'ov', count * 2, 'AWAITING_APPROVAL');
    await sql(
      rt,
      `insert into task_overlaps (task_a, task_b, project_id, repo_key, files, detected_at, updated_at) values ${values(count, (i) => `('ov-${2 * i}', 'ov-${2 * i + 1}', 'seed', '', '["src/a.ts"]', ${now + i}, ${now + i})`)}`,
    );
    return { project_id: 'seed' };
  },
  list_agent_requests: async (rt, count) => {
    await sql(
      rt,
      `insert into agent_requests (task_id, project_id, kind, payload, created_at) values ${values(count, () => `('root-0', 'seed', 'permission', '{"tool":"Bash"}', ${now})`)}`,
    );
    return { project_id: 'seed' };
  },
  get_merge_queue: async (rt, count) => {
    await insertTasks(rt, 'queued', count, 'AWAITING_APPROVAL');
    await sql(
      rt,
      `insert into merge_train (task_id, project_id, train, place, state, since, entered_at, tries) values ${values(count, (i) => `('queued-${i}', 'seed', 'project:seed', ${i + 1}, 'waiting', ${now + i}, ${now + i}, 0)`)}`,
    );
    return { project_id: 'seed' };
  },
};

/**
 * Arrays in replies that are not pages, each with what bounds it. A key `<list>` with a
 * `<list>_total` beside it in the reply (a second list paged by the same limit) needs no entry.
 */
const FIXED_BOUNDS: Record<string, string> = {
  'get_status.agents': 'one per agent; agents are created by people, not by history',
  'get_status.not_starting': 'at most STATUS_READY_LIMIT projects',
  'get_chain_health.stuck_downstream': 'with task_id, paged by limit and offset; stuck_count counts them all',
  'find_merge_conflict_workspaces.conflicts': 'one per workspace of the project, which the scan visits anyway',
  'get_git_status.repos': 'one per repo of the project, each with its 5 latest commits',
  'git_branch.branches': 'paged by limit and offset; total counts them all (files.test, git-commands.test)',
  'git_changed_files.files': 'paged by limit and offset; count counts them all',
  'list_directory.directories': "one page of the folder's entries, folders and files alike; total counts them",
  'list_directory.files': "one page of the folder's entries, folders and files alike; total counts them",
  'get_task_result.files_changed': "one task's changed files",
  'get_tool_policy.rules': 'at most 200 rules (set_tool_policy refuses more)',
  'get_plan.steps': "one plan's steps: at most auto_task.max_steps_per_plan (20), where the parsers and revise_plan cut a plan",
};

const listCommands = ALL_COMMANDS.filter((c): c is AnyCommand & { list: NonNullable<AnyCommand['list']> } => c.list !== undefined);

describe('every list-like reply is bounded', () => {
  let rt: TestRuntime;
  const args = new Map<string, Reply>();
  const seeded = new Map<string, number>();

  beforeAll(async () => {
    rt = await makeTestRuntime();
    await rt.exec('create_project', { name: 'seed' });
    await insertTasks(rt, 'root', 1, 'BLOCKED');
    // Seeded in a fixed order: list_hook_runs needs a hook from list_hooks.
    for (const name of Object.keys(SEEDERS)) {
      const command = listCommands.find((c) => c.name === name);
      if (!command) continue;
      const count = command.list.defaultLimit + 5;
      args.set(name, await SEEDERS[name](rt, count));
      seeded.set(name, count);
    }
  }, 60_000);
  afterAll(() => rt.cleanup());

  it('finds the list commands in the catalog, each with a seeder here', () => {
    expect(listCommands.length).toBeGreaterThanOrEqual(12);
    expect(listCommands.map((c) => c.name).filter((name) => !SEEDERS[name])).toEqual([]);
  });

  it.each(listCommands.map((c) => [c.name, c] as const))('%s: limit and offset within declared bounds', (_name, command) => {
    const fields = fieldsOf(command) as Record<string, { maximum?: number; minimum?: number; anyOf?: Array<{ maximum?: number }> }>;
    const limit = fields.limit;
    expect(limit).toBeDefined();
    expect(fields.offset).toBeDefined();
    const maximum = limit.maximum ?? limit.anyOf?.find((s) => s.maximum !== undefined)?.maximum;
    expect(maximum).toBe(command.list.maxLimit);
    expect(command.list.defaultLimit).toBeLessThanOrEqual(command.list.maxLimit);
  });

  it.each(listCommands.map((c) => [c.name, c] as const))(
    '%s: one page by default, a total, and next_offset reaches the rest',
    async (name, command) => {
      const { key, defaultLimit, maxLimit } = command.list;
      const totalKey = command.list.totalKey ?? 'total';
      const base = args.get(name)!;

      const first = await rt.exec(name, base);
      expect(first.error).toBeUndefined();
      expect(first[key]).toHaveLength(defaultLimit);
      const total = first[totalKey] as number;
      expect(total).toBeGreaterThanOrEqual(seeded.get(name)!);
      expect(first.next_offset).toBe(defaultLimit);

      const items: unknown[] = [];
      let offset: number | null = 0;
      let pages = 0;
      while (offset !== null) {
        const page: Reply = await rt.exec(name, { ...base, offset, limit: maxLimit });
        expect(page.error).toBeUndefined();
        expect((page[key] as unknown[]).length).toBeLessThanOrEqual(maxLimit);
        items.push(...(page[key] as unknown[]));
        offset = page.next_offset as number | null;
        expect(++pages).toBeLessThanOrEqual(Math.ceil(total / maxLimit));
      }
      expect(items).toHaveLength(total);
      expect(new Set(items.map((item) => JSON.stringify(item))).size).toBe(total);

      expect(await rt.exec(name, { ...base, offset: total })).toMatchObject({ [key]: [], next_offset: null });
      expect(await rt.exec(name, { ...base, limit: maxLimit + 1 })).toEqual({ error: expect.stringContaining('limit') });
    },
  );

  it.each(listCommands.map((c) => [c.name, c] as const))(
    '%s: its Slack card counts the whole list, not the page, and says how to ask for the next',
    async (name, command) => {
      const base = args.get(name)!;
      const first = await rt.exec(name, base);
      const total = first[command.list.totalKey ?? 'total'] as number;
      const shown = JSON.stringify(renderResult(name, base, first).blocks);
      expect([String(total), total.toLocaleString('en-US')].some((written) => shown.includes(written))).toBe(true);
      // list_tasks pages through its reply in Slack with Prev and Next buttons; every other card names the next offset.
      expect(shown).toContain(name === 'list_tasks' ? 'aq_tasks_page_next' : `offset=${String(first.next_offset)}`);
    },
  );

  it('answers no read-only command with an array that is neither a page nor fixed in size', async () => {
    const known = { project_id: 'seed', task_id: 'root-0', hook_id: 'h-0', repo_id: 'r-0', path: '.', title: 'Note 1', pattern: 'x' };
    const unbounded: string[] = [];
    let answered = 0;
    for (const command of ALL_COMMANDS.filter((c) => c.kind === 'read')) {
      const given: Reply = args.get(command.name) ?? {};
      for (const field of Object.keys(fieldsOf(command))) {
        if (given[field] === undefined && field in known) given[field] = known[field as keyof typeof known];
      }
      const reply = await rt.exec(command.name, given);
      if (typeof reply.error === 'string') continue;
      answered++;
      for (const [field, value] of Object.entries(reply)) {
        if (!Array.isArray(value)) continue;
        const paged = field === command.list?.key || `${field}_total` in reply;
        if (!paged && !FIXED_BOUNDS[`${command.name}.${field}`]) unbounded.push(`${command.name}.${field}`);
      }
    }
    expect(unbounded).toEqual([]);
    expect(answered).toBeGreaterThanOrEqual(listCommands.length);
  });
});
