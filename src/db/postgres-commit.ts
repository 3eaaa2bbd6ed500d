/**
 * How long a PostgreSQL commit waits for its write-ahead log, as the database URL's
 * `synchronous_commit` asks (`postgres://…/agent_queue?synchronous_commit=on`); PostgreSQL's own
 * levels, from `off` to `remote_apply`. The app's default is `off`, the durability SQLite has in
 * WAL mode with `synchronous = NORMAL`: a crash of the app or of the server loses nothing, an
 * operating system crash or a power cut may roll back the last commits (under a second of them),
 * and the database stays consistent. Waiting for the disk at every commit was most of a write's
 * time (bench/README.md).
 */
export const SYNCHRONOUS_COMMIT_LEVELS = ['off', 'local', 'remote_write', 'on', 'remote_apply'] as const;
export type SynchronousCommit = (typeof SYNCHRONOUS_COMMIT_LEVELS)[number];

const isLevel = (value: string): value is SynchronousCommit => (SYNCHRONOUS_COMMIT_LEVELS as readonly string[]).includes(value);

/** The level `url` asks for, `off` when it names none; throws when it names one PostgreSQL does not have. */
export function synchronousCommitOf(url: string): SynchronousCommit {
  const asked = new URL(url).searchParams.get('synchronous_commit');
  if (asked === null) return 'off';
  if (!isLevel(asked)) {
    throw new Error(
      `DATABASE_URL's synchronous_commit must be one of ${SYNCHRONOUS_COMMIT_LEVELS.join(', ')} (got ${JSON.stringify(asked)}).`,
    );
  }
  return asked;
}
