import type { DatabaseTarget } from './orm';

/** The database could not be reached or opened: the message is one sentence for people, naming it (never its password). */
export class DatabaseUnreachableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseUnreachableError';
  }
}

/** `host:port/database` of a postgres:// URL, without user or password. */
export function describePostgresUrl(url: string): { where: string; host: string; database: string; user: string } {
  try {
    const u = new URL(url);
    const database = decodeURIComponent(u.pathname.replace(/^\//, '')) || decodeURIComponent(u.username) || 'postgres';
    const host = u.hostname || 'localhost';
    return { where: `${host}:${u.port || '5432'}/${database}`, host, database, user: decodeURIComponent(u.username) || 'postgres' };
  } catch {
    return { where: 'the DATABASE_URL server', host: 'unknown', database: 'unknown', user: 'unknown' };
  }
}

/**
 * What went wrong opening the database, as one sentence that says what to do, or null when
 * `err` is not about reaching it. PostgreSQL's SQLSTATE and Node's socket codes say which.
 */
export function unreachableDatabase(err: unknown, target: DatabaseTarget): DatabaseUnreachableError | null {
  const code = String((err as { code?: unknown })?.code ?? '');
  if (target.dialect === 'sqlite') {
    if (code === 'SQLITE_CANTOPEN' || code === 'SQLITE_NOTADB' || code === 'SQLITE_READONLY') {
      const why = code === 'SQLITE_NOTADB' ? 'the file is not an SQLite database' : 'it cannot be opened for writing';
      return new DatabaseUnreachableError(`The SQLite database ${target.path} cannot be used: ${why}. Check AQ_HOME or DATABASE_URL.`);
    }
    return null;
  }
  const { where, host, database, user } = describePostgresUrl(target.url);
  const sentence = (() => {
    switch (code) {
      case '28P01':
      case '28000':
        return `PostgreSQL at ${where} refused the password of user '${user}': check the user and password in DATABASE_URL.`;
      case '3D000':
        return `The database '${database}' does not exist on the PostgreSQL server at ${where}: create it (createdb ${database}) or fix its name in DATABASE_URL.`;
      case 'ECONNREFUSED':
        return `Nothing answers at ${where}: start PostgreSQL there, or fix the host and port in DATABASE_URL.`;
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
        return `The database host '${host}' (${where}) is unknown: fix the host name in DATABASE_URL.`;
      case 'ETIMEDOUT':
      case 'EHOSTUNREACH':
      case 'ENETUNREACH':
        return `The PostgreSQL server at ${where} cannot be reached from here: check the host, the port and the network.`;
      case '57P03':
        return `The PostgreSQL server at ${where} is starting up or shutting down: try again in a moment.`;
      case '53300':
        return `The PostgreSQL server at ${where} has no connection slot left: raise max_connections or run fewer processes.`;
      default:
        return null;
    }
  })();
  return sentence ? new DatabaseUnreachableError(sentence) : null;
}
