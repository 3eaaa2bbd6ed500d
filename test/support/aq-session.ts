import { MikroORM } from '@mikro-orm/sqlite';
import { ormOptions } from '../../src/db/orm';
import type { AqAnswer } from './aq-process';

/**
 * A session for `aq exec -` that writes, reads, fails validation and names unknown things, as
 * people use aq: one command a line, and a last line that is not JSON.
 */
export const AQ_SESSION = [
  { name: 'create_project', args: { name: 'Demo' } },
  { name: 'set_active_project', args: { project_id: 'demo' } },
  { name: 'create_task', args: { title: 'First', description: 'Do the first thing' } },
  { name: 'create_task', args: { title: 'Second', description: 'Then this', priority: 5 } },
  { name: 'list_tasks', args: {} },
  { name: 'get_status', args: {} },
  { name: 'list_projects', args: {} },
  { name: 'get_token_usage', args: {} },
  { name: 'create_task', args: {} },
  { name: 'get_task', args: { task_id: 'no-such-task' } },
  { name: 'no_such_command', args: {} },
  { name: 'set_task_status', args: { task_id: 'a\u0000b', status: 'READY' } },
]
  .map((line) => JSON.stringify(line))
  .concat(['not json'])
  .join('\n');

/** The answers `aq exec -` gives AQ_SESSION: one line each. */
export const AQ_SESSION_ANSWERS = AQ_SESSION.split('\n').length;

/**
 * An answer of an `aq` run on AQ_HOME `home`, made comparable with another home's: task ids are
 * random words and each run has its own AQ_HOME, so both are named (the ids in the order they
 * were created in that home) rather than compared.
 */
export function comparableAnswers(home: string): (run: AqAnswer) => AqAnswer {
  const ids: string[] = [];
  return (run) => {
    for (const m of run.stdout.matchAll(/"created":"([a-z]+-[a-z]+-\d+)"/g)) if (!ids.includes(m[1])) ids.push(m[1]);
    const scrub = (text: string) => ids.reduce((t, id, i) => t.split(id).join(`<task ${i + 1}>`), text.split(home).join('<AQ_HOME>'));
    return { code: run.code, stdout: scrub(run.stdout), stderr: scrub(run.stderr) };
  };
}

/** The migrations recorded as applied in the SQLite file at `databasePath`, sorted. */
export async function appliedMigrations(databasePath: string): Promise<string[]> {
  const orm = await MikroORM.init(ormOptions(databasePath));
  try {
    const applied = await orm.em.getConnection().execute<Array<{ name: string }>>('select name from mikro_orm_migrations');
    return applied.map((r) => r.name).sort();
  } finally {
    await orm.close(true);
  }
}
