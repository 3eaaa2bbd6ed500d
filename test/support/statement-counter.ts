import type { Database } from '../../src/db/database';

/** How many statements a database's connection has run since counting began. */
export interface StatementCounter {
  readonly count: number;
  /** Of those, how many have not answered yet. */
  readonly running: number;
  /** Puts the connection's own execute back. */
  stop(): void;
}

/**
 * Counts the statements the database's connection runs (the ORM's queries go through it too):
 * what a command costs in round trips, whatever the machine's load. Used by tests and benches.
 */
export function countStatements(db: Database): StatementCounter {
  const connection = db.orm.em.getConnection() as unknown as { execute: (...args: unknown[]) => Promise<unknown> };
  const execute = connection.execute;
  let count = 0;
  let answered = 0;
  connection.execute = (...args: unknown[]) => {
    count++;
    return execute.apply(connection, args).finally(() => {
      answered++;
    });
  };
  return {
    get count() {
      return count;
    },
    get running() {
      return count - answered;
    },
    stop() {
      connection.execute = execute;
    },
  };
}
