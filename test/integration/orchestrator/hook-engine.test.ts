// @database-dependent: due hooks, cooldowns and the cap are read from hook runs in SQL.
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { commitFile, gitOut } from '../../support/git-fixtures';
import path from 'node:path';
import type { HookDefinition } from '../../../src/db/repositories/hook-runs';
import { HookEngine, type HookModelRunner } from '../../../src/orchestrator/hooks';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';
import { orchestratorCommands } from '../../../src/commands/orchestrator-commands';

type HookFields = Partial<Omit<HookDefinition, 'trigger'>> & { id: string; trigger: Record<string, unknown> };

/** A hook of project `p`, created as of 2026-01-01, with `data` over the defaults here. */
async function addHook(rt: TestRuntime, data: HookFields) {
  await rt.db.hooks.create({
    projectId: 'p',
    name: data.id,
    promptTemplate: 'Summarise: {{step_0}}',
    contextSteps: [],
    cooldownSeconds: 3600,
    llmConfig: null,
    ...data,
    trigger: data.trigger as HookDefinition['trigger'],
  });
  await rt.db
    .em()
    .execute('update hooks set created_at = ?, last_run_at = ? where id = ?', [
      Date.parse('2026-01-01T00:00:00Z'),
      data.lastRunAt?.getTime() ?? null,
      data.id,
    ]);
}

async function runs(rt: TestRuntime, hookId: string) {
  return rt.db
    .em()
    .getConnection()
    .execute<Array<Record<string, unknown>>>(
      'select status, trigger_reason, skipped_reason, tokens_used, prompt_sent, llm_response, context_results from hook_runs where hook_id = ? order by started_at',
      [hookId],
    );
}

describe('HookEngine', () => {
  let rt: TestRuntime;
  let clock: Date;
  let prompts: string[];
  let engine: HookEngine;
  const model: HookModelRunner = async ({ prompt }) => {
    prompts.push(prompt);
    return { text: `answer to: ${prompt}`, tokensUsed: 42 };
  };

  beforeEach(async () => {
    rt = await makeTestRuntime();
    await rt.exec('create_project', { name: 'p' });
    clock = new Date('2026-06-01T12:00:00Z');
    prompts = [];
    engine = new HookEngine({
      db: rt.db,
      events: rt.events,
      commands: orchestratorCommands((name, args) => rt.handler.executeAny(name, args, { source: 'hook' })),
      runModel: model,
      now: () => clock,
      maxConcurrent: 2,
    });
    engine.start();
  });
  afterEach(async () => {
    engine.stop();
    await engine.idle();
    await rt.cleanup();
  });

  it('runs a periodic hook when due, templating step output into the prompt, then respects the interval', async () => {
    await addHook(rt, {
      id: 'tick',
      trigger: { type: 'periodic', interval_seconds: 600 },
      cooldownSeconds: 0,
      contextSteps: [{ type: 'shell', command: 'echo hello-from-shell' }],
    });
    await engine.tick();
    await engine.idle();
    expect(prompts).toEqual(['Summarise: hello-from-shell\n']);
    const [run] = await runs(rt, 'tick');
    expect(run).toMatchObject({ status: 'completed', trigger_reason: 'periodic', tokens_used: 42 });

    clock = new Date(clock.getTime() + 300_000);
    await engine.tick();
    await engine.idle();
    expect(prompts).toHaveLength(1);
    clock = new Date(clock.getTime() + 301_000);
    await engine.tick();
    await engine.idle();
    expect(prompts).toHaveLength(2);
    const events = (await rt.db.events.recent(10)).map((e) => e.type);
    expect(events.filter((t) => t === 'hook_run_completed')).toHaveLength(2);
  });

  it('fires event hooks of the same project only, and enforces the cooldown between firings', async () => {
    await rt.exec('create_project', { name: 'other' });
    await addHook(rt, {
      id: 'on-done',
      trigger: { type: 'event', event_type: 'project_paused' },
      promptTemplate: 'Paused {{event.project_id}}',
    });
    await rt.exec('pause_project', { project_id: 'other' });
    await engine.idle();
    expect(prompts).toEqual([]);
    await rt.exec('pause_project', { project_id: 'p' });
    await engine.idle();
    expect(prompts).toEqual(['Paused p']);
    await rt.exec('pause_project', { project_id: 'p' });
    await engine.idle();
    expect(prompts).toHaveLength(1);
  });

  it('a run started by an event about a task is about that task; a periodic run is about none', async () => {
    await addHook(rt, {
      id: 'on-done',
      trigger: { type: 'event', event_type: 'task_completed' },
      promptTemplate: 'Done {{event.task_id}}',
    });
    await addHook(rt, { id: 'tick', trigger: { type: 'periodic', interval_seconds: 600 }, cooldownSeconds: 0, promptTemplate: 'Tick' });
    const id = (await rt.exec('create_task', { project_id: 'p', title: 'Ship it', description: 'd' })).created as string;
    await rt.events.emit('task_completed', { projectId: 'p', taskId: id, payload: { title: 'Ship it' } });
    await engine.idle();
    await engine.tick();
    await engine.idle();
    const finished = (await rt.db.events.recent(20)).filter((e) => e.type === 'hook_run_completed');
    expect(finished.map((e) => [e.payload.hook_id, e.taskId]).sort()).toEqual([
      ['on-done', id],
      ['tick', null],
    ]);
  });

  it('fire() bypasses the cooldown but not an unknown id', async () => {
    await addHook(rt, { id: 'manual', trigger: { type: 'periodic', interval_seconds: 99999 }, lastRunAt: clock });
    expect(await engine.fire('manual')).toBeNull();
    await engine.idle();
    expect(prompts).toHaveLength(1);
    expect((await runs(rt, 'manual'))[0]).toMatchObject({ trigger_reason: 'manual', status: 'completed' });
    expect(await engine.fire('missing')).toBe("Hook 'missing' not found.");
  });

  it('skips the model when a step short-circuits, and records the reason', async () => {
    await addHook(rt, {
      id: 'quiet',
      trigger: { type: 'periodic', interval_seconds: 1 },
      contextSteps: [{ type: 'shell', command: 'true', skip_llm_if_exit_zero: true }],
    });
    await engine.tick();
    await engine.idle();
    expect(prompts).toEqual([]);
    expect((await runs(rt, 'quiet'))[0]).toMatchObject({ status: 'skipped', skipped_reason: 'step_0: exit code 0' });
  });

  it('reads files through the validated read_file command and fails the run on a model error', async () => {
    const file = path.join(rt.config.workspaceDir, 'p', 'notes.txt');
    await writeFile(file, 'line one\nline two\n');
    await addHook(rt, {
      id: 'reader',
      trigger: { type: 'periodic', interval_seconds: 1 },
      contextSteps: [{ type: 'read_file', path: file }],
      promptTemplate: '{{step_0}}',
    });
    const failing = new HookEngine({
      db: rt.db,
      events: rt.events,
      commands: orchestratorCommands((name, args) => rt.handler.executeAny(name, args, { source: 'hook' })),
      runModel: async ({ prompt }) => {
        prompts.push(prompt);
        throw new Error('model unavailable');
      },
      now: () => clock,
    });
    await failing.tick();
    await failing.idle();
    expect(prompts[0]).toContain('line one');
    expect((await runs(rt, 'reader'))[0]).toMatchObject({ status: 'failed', llm_response: 'model unavailable' });
  });

  it("reads a relative path in the project's folder, runs named queries and creates tasks, refusing bad step values", async () => {
    const project = (await rt.exec('get_project', { project_id: 'p' })) as { workspace: string };
    await writeFile(path.join(project.workspace, 'CHANGELOG.md'), 'v2: faster\n');
    await rt.exec('create_task', { project_id: 'p', title: 'Broken build', description: 'd' });
    await addHook(rt, {
      id: 'steps',
      trigger: { type: 'periodic', interval_seconds: 1, skip_llm: true },
      contextSteps: [
        { type: 'read_file', path: 'CHANGELOG.md' },
        { type: 'db_query', query: 'project_tasks_by_status', params: { status: 'READY' } },
        { type: 'db_query', query: 'constructor' },
        { type: 'create_task', title: 'Follow up on {{step_0.content}}', description: 'From a hook', priority: '7' },
        { type: 'create_task', title: 'Never made', description: 'd', priority: 'soon' },
        { type: 'read_file', path: 'CHANGELOG.md', max_lines: 'all' },
      ],
    });
    await engine.tick();
    await engine.idle();
    const [run] = await runs(rt, 'steps');
    expect(run).toMatchObject({ status: 'completed', skipped_reason: 'skip_llm' });
    const stored = run!.context_results;
    const results = (typeof stored === 'string' ? JSON.parse(stored) : stored) as Array<Record<string, unknown>>;
    expect(results[0]).toMatchObject({ content: 'v2: faster', path: path.join(project.workspace, 'CHANGELOG.md') });
    expect(JSON.parse(String(results[1]!.content))).toMatchObject({ total: 1, tasks: [{ title: 'Broken build' }] });
    expect(results[2]!.error).toMatch(/^Unknown query "constructor"\. Known queries: recent_events, /);
    const created = String(results[3]!.task_id);
    expect(await rt.exec('get_task', { task_id: created })).toMatchObject({
      title: 'Follow up on v2: faster',
      priority: 7,
      project_id: 'p',
    });
    expect(results[4]).toEqual({ error: 'create_task step: priority must be a whole number (got "soon").', _step_index: 4 });
    expect(results[5]!.error).toBe('read_file step: max_lines must be a whole number (got "all").');
    expect((await rt.exec('list_tasks', { project_id: 'p' })).total).toBe(2);
  });
  it('never runs more hooks at once than the cap, nor the same hook twice', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = new HookEngine({
      db: rt.db,
      events: rt.events,
      commands: orchestratorCommands((name, args) => rt.handler.executeAny(name, args, { source: 'hook' })),
      runModel: async () => {
        await gate;
        return { text: 'ok', tokensUsed: 1 };
      },
      now: () => clock,
      maxConcurrent: 1,
    });
    await addHook(rt, { id: 'a', trigger: { type: 'periodic', interval_seconds: 1 } });
    await addHook(rt, { id: 'b', trigger: { type: 'periodic', interval_seconds: 1 } });
    const [first, second] = await Promise.all([slow.fire('a'), slow.fire('a')]);
    expect([first, second].filter((r) => r === null)).toHaveLength(1);
    expect(await slow.fire('b')).toMatch(/already running/);
    release();
    await slow.idle();
    expect(await runs(rt, 'a')).toHaveLength(1);
    expect(await runs(rt, 'b')).toHaveLength(0);
  });

  it('fetches http context (loopback) and git diffs, and skips the model on a 2xx when asked', async () => {
    const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('all systems nominal'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const ws = path.join(rt.config.workspaceDir, 'p');
    await gitOut(ws, 'init', '-b', 'main');
    await gitOut(ws, 'config', 'user.email', 't@example.com');
    await gitOut(ws, 'config', 'user.name', 'T');
    await commitFile(ws, 'a.txt', 'one\n');
    await gitOut(ws, 'checkout', '-b', 'feature');
    await commitFile(ws, 'a.txt', 'two\n');
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/health`;
      await addHook(rt, {
        id: 'watch',
        trigger: { type: 'periodic', interval_seconds: 1 },
        contextSteps: [
          { type: 'http', url },
          { type: 'git_diff', base_branch: 'main' },
        ],
        promptTemplate: 'Health: {{step_0.body}} ({{step_0.status_code}})\n{{step_1}}',
      });
      await addHook(rt, {
        id: 'quiet-http',
        trigger: { type: 'periodic', interval_seconds: 1 },
        contextSteps: [{ type: 'http', url, skip_llm_if_status_ok: true }],
      });
      await engine.tick();
      await engine.idle();
      expect(prompts).toHaveLength(1);
      expect(prompts[0]).toContain('Health: all systems nominal (200)');
      expect(prompts[0]).toContain('+two');
      expect((await runs(rt, 'quiet-http'))[0]).toMatchObject({ status: 'skipped', skipped_reason: 'step_0: HTTP 200' });
    } finally {
      server.close();
    }
  });

  it('reads the first 50,000 characters of an endless page, then lets it go', async () => {
    let closed!: () => void;
    const gone = new Promise<void>((resolve) => (closed = resolve));
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const more = () => {
        while (res.write('é'.repeat(4096))) {}
      };
      res.on('drain', more);
      res.on('close', closed);
      more();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      await addHook(rt, {
        id: 'endless',
        trigger: { type: 'periodic', interval_seconds: 1, skip_llm: true },
        contextSteps: [{ type: 'http', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/stream` }],
      });
      await engine.tick();
      await engine.idle();
      const stored = (await runs(rt, 'endless'))[0]!.context_results;
      const [result] = (typeof stored === 'string' ? JSON.parse(stored) : stored) as Array<Record<string, unknown>>;
      expect(result).toMatchObject({ status_code: 200, body: 'é'.repeat(50_000) });
      await gone;
    } finally {
      server.close();
    }
  });

  it("passes an event's text and an earlier step's output to a shell step as words, never as shell code", async () => {
    const marker = path.join(rt.home, 'injected');
    const title = `it's "quoted" $(touch ${marker}) \`touch ${marker}\`; touch ${marker}`;
    await addHook(rt, {
      id: 'on-create',
      trigger: { type: 'event', event_type: 'task_created' },
      contextSteps: [
        // The admin's command, quoted as people write it, and unquoted.
        { type: 'shell', command: 'printf "%s|" "{{event.title}}" {{event.title}}' },
        { type: 'shell', command: `echo '$(touch ${marker})'` },
        { type: 'shell', command: 'printf "%s" {{step_1}}' },
      ],
      promptTemplate: '{{step_0}}//{{step_2}}',
    });
    await rt.exec('create_task', { project_id: 'p', title, description: 'd' });
    await engine.idle();
    expect(existsSync(marker)).toBe(false);
    // Quoted or not, the title arrives whole, as one argument; the step's output too (echo's line break included).
    expect(prompts).toEqual([`${title}|${title}|//$(touch ${marker})\n`]);
  });

  it("puts an event's text into an http step's path and query as one encoded value", async () => {
    const asked: string[] = [];
    const server = http.createServer((req, res) => {
      asked.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'text/plain' }).end('noted');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const title = '../../admin?drop=all&x=1#frag';
      await addHook(rt, {
        id: 'notify',
        trigger: { type: 'event', event_type: 'task_created' },
        contextSteps: [{ type: 'http', url: `${base}/notes/{{event.title}}?title={{event.title}}&fixed=1` }],
        promptTemplate: '{{step_0.body}}',
      });
      await rt.exec('create_task', { project_id: 'p', title, description: 'd' });
      await engine.idle();
      const encoded = encodeURIComponent(title);
      expect(asked).toEqual([`/notes/${encoded}?title=${encoded}&fixed=1`]);
      expect(new URL(asked[0], base).searchParams.get('title')).toBe(title);
      expect(prompts).toEqual(['noted']);
    } finally {
      server.close();
    }
  });
});
