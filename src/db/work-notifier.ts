/** The channel a task's move to READY, or off a running state, notifies (see Migration20261125200100). */
export const WORK_CHANNEL = 'aq_work';

/** The little of pg's Client used here (pg ships no types). */
interface PgClient {
  connect(): Promise<void>;
  query(sql: string): Promise<unknown>;
  end(): Promise<void>;
  on(event: 'notification', listener: () => void): void;
  on(event: 'error', listener: (err: Error) => void): void;
  on(event: 'end', listener: () => void): void;
}

const FIRST_RETRY_MS = 250;
const LAST_RETRY_MS = 10_000;

/**
 * A PostgreSQL connection of its own that LISTENs on WORK_CHANNEL and calls `onWork` for each
 * notice, so an idle worker starts a new task at once instead of at its next poll. When the
 * connection is cut it reconnects (backing off up to 10 s) and then calls `onWork` once, for what
 * it may have missed; polling carries on meanwhile, so a notice lost is only a slower start.
 */
export class WorkNotifier {
  private client: PgClient | null = null;
  private closed = false;
  private retryMs = FIRST_RETRY_MS;
  private retry: NodeJS.Timeout | null = null;

  private constructor(
    private readonly url: string,
    private readonly onWork: () => void,
    private readonly log: (message: string) => void,
  ) {}

  /** Listens from the moment it resolves: a notice committed after that reaches `onWork`. */
  static async listen(url: string, onWork: () => void, log: (message: string) => void): Promise<WorkNotifier> {
    const notifier = new WorkNotifier(url, onWork, log);
    await notifier.connect();
    return notifier;
  }

  get listening(): boolean {
    return this.client !== null;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const { Client } = require('pg') as { Client: new (options: { connectionString: string }) => PgClient };
    const client = new Client({ connectionString: this.url });
    client.on('notification', () => this.onWork());
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, null));
    try {
      await client.connect();
      await client.query(`listen ${WORK_CHANNEL}`);
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.retryMs = FIRST_RETRY_MS;
  }

  private lost(client: PgClient, err: Error | null): void {
    if (this.closed || this.client !== client) return;
    this.client = null;
    this.log(
      `The database connection that wakes this process on new tasks was cut${err ? ` (${err.message})` : ''}; it polls until the connection is back.`,
    );
    void client.end().catch(() => undefined);
    this.reconnectLater();
  }

  private reconnectLater(): void {
    this.retry = setTimeout(() => {
      this.retry = null;
      this.connect().then(
        () => {
          if (this.closed) return;
          this.log('The database connection that wakes this process on new tasks is back.');
          this.onWork();
        },
        () => {
          if (this.closed) return;
          this.retryMs = Math.min(this.retryMs * 2, LAST_RETRY_MS);
          this.reconnectLater();
        },
      );
    }, this.retryMs);
    this.retry.unref?.();
  }
}
