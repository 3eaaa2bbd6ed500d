import { EventType, type IsolationLevel, type LogContext, type TransactionEventBroadcaster } from '@mikro-orm/core';
import type { AbstractSqlConnection, AnyEntity, EntityData, Knex, LoggingOptions, QueryResult } from '@mikro-orm/sqlite';

/**
 * A raw statement (`em.execute`, and the ORM's own queries, which reach the connection as SQL
 * text and values) run on the driver's own connection instead of through a knex `raw` builder
 * and its runner. MikroORM writes the values into the SQL before knex sees it, and with no
 * bindings left knex's part was only the connection and the call: this does the same, with the
 * same result handling and the transaction's one connection when there is one. Each dialect says
 * how it runs a statement (`runOnDriver`): each prepares it once and binds its values where that
 * reads the same as MikroORM's written-in text (sqlite-statements.ts, postgres-statements.ts).
 * It saves about 0.15 ms of CPU a statement (bench/README.md, "Statements on the driver's
 * connection"), and a claim with its run makes about 25 of them.
 *
 * Transactions too: a plain one (no isolation level, not read-only) is BEGIN … COMMIT on one
 * connection from the pool, and one inside it a savepoint, instead of a knex transaction (which
 * builds a knex instance of its own for each). The ORM's query builders still compile their SQL
 * through the transaction's `client`: a knex client whose one connection is the transaction's.
 */

/** The part of a knex client used here: its pool, or inside a transaction its one connection. */
interface ConnectionSource {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<unknown>;
}

/**
 * Runs `work` on the transaction's connection when `ctx` is a transaction (as knex's transaction
 * client hands it out), otherwise on one taken from the pool and given back after.
 */
export async function onDriverConnection<T>(
  knex: Knex,
  ctx: Knex.Transaction | null | undefined,
  work: (connection: unknown) => Promise<T>,
): Promise<T> {
  if (ctx) {
    // As knex refuses it: a statement after the transaction's commit or rollback.
    if (ctx.isCompleted()) throw new Error('Transaction query already complete.');
    return work(await (ctx.client as unknown as ConnectionSource).acquireConnection());
  }
  const pool = knex.client as unknown as ConnectionSource;
  const connection = await pool.acquireConnection();
  try {
    return await work(connection);
  } finally {
    await pool.releaseConnection(connection);
  }
}

/**
 * A transaction the connection runs itself, where the ORM and knex builders expect a knex
 * transaction: `isCompleted()`, and a `client` bound to the transaction's connection.
 */
export class DirectTransaction {
  completed = false;
  private released = false;
  readonly client: unknown;
  readonly savepoint: string | null;

  constructor(
    readonly connection: unknown,
    knex: Knex,
    readonly parent: DirectTransaction | null,
  ) {
    const client = Object.create(knex.client) as ConnectionSource & { transacting: boolean };
    client.transacting = true;
    client.acquireConnection = () => Promise.resolve(connection);
    client.releaseConnection = () => Promise.resolve();
    this.client = client;
    this.savepoint = parent ? `trx${parent.depth + 1}` : null;
  }

  get depth(): number {
    return this.parent ? this.parent.depth + 1 : 0;
  }

  isCompleted(): boolean {
    return this.completed;
  }

  /** Gives a root transaction's connection back to the pool, once. */
  async release(knex: Knex): Promise<void> {
    if (this.parent || this.released) return;
    this.released = true;
    await (knex.client as unknown as ConnectionSource).releaseConnection(this.connection);
  }
}

type Method = 'all' | 'get' | 'run';
type BeginOptions = {
  isolationLevel?: IsolationLevel;
  readOnly?: boolean;
  ctx?: Knex.Transaction;
  eventBroadcaster?: TransactionEventBroadcaster;
  loggerContext?: LogContext;
};
// biome-ignore lint/suspicious/noExplicitAny: a mixin's base constructor must take any arguments.
type ConnectionClass = abstract new (...args: any[]) => AbstractSqlConnection;

/**
 * `Base` with raw statements run by `runOnDriver` on the driver's connection, and plain
 * transactions (DirectTransaction) run by it too. What it does not take (a knex builder, a query
 * being logged, a transaction with an isolation level or read-only, a savepoint in a knex
 * transaction) goes through `Base` as before.
 */
export function withDirectStatements<TBase extends ConnectionClass>(Base: TBase) {
  abstract class DirectStatements extends Base {
    /**
     * Runs `sql` on the driver's `connection`, each `?` standing for the next of `params` as the
     * platform's `formatQuery` would write it in, and answers what knex's dialect answers.
     * `inTransaction`: the connection is a transaction's, which a failed statement would abort.
     */
    protected abstract runOnDriver(connection: unknown, sql: string, params: readonly unknown[], inTransaction: boolean): Promise<unknown>;

    override async execute<T extends QueryResult | EntityData<AnyEntity> | EntityData<AnyEntity>[] = EntityData<AnyEntity>[]>(
      query: string | Knex.QueryBuilder | Knex.Raw,
      params: unknown[] = [],
      method: Method = 'all',
      ctx?: Knex.Transaction,
      loggerContext?: LoggingOptions,
    ): Promise<T> {
      if (typeof query !== 'string' || this.logger.isEnabled('query', loggerContext))
        return super.execute<T>(query, params, method, ctx, loggerContext);
      await this.ensureConnection();
      const sql = this.config.get('onQuery')(query, params);
      return this.transformRawResult<T>(
        await onDriverConnection(this.getKnex(), ctx, (connection) => this.runOnDriver(connection, sql, params, ctx != null)),
        method,
      );
    }

    override async begin(options: BeginOptions = {}): Promise<Knex.Transaction> {
      const parent = options.ctx as unknown;
      if (parent instanceof DirectTransaction) {
        const savepoint = new DirectTransaction(parent.connection, this.getKnex(), parent);
        await this.runOnDriver(parent.connection, `savepoint ${savepoint.savepoint}`, [], true);
        return savepoint as unknown as Knex.Transaction;
      }
      const plain = !options.isolationLevel && !options.readOnly && !this.logger.isEnabled('query', options.loggerContext);
      if (parent || !plain) return super.begin(options);
      await options.eventBroadcaster?.dispatchEvent(EventType.beforeTransactionStart);
      const pool = this.getKnex().client as unknown as ConnectionSource;
      const connection = await pool.acquireConnection();
      const trx = new DirectTransaction(connection, this.getKnex(), null);
      try {
        await this.runOnDriver(connection, 'begin', [], true);
      } catch (err) {
        await pool.releaseConnection(connection);
        throw err;
      }
      await options.eventBroadcaster?.dispatchEvent(EventType.afterTransactionStart, trx as unknown as Knex.Transaction);
      return trx as unknown as Knex.Transaction;
    }

    override async commit(
      ctx: Knex.Transaction,
      eventBroadcaster?: TransactionEventBroadcaster,
      loggerContext?: LogContext,
    ): Promise<void> {
      const trx = ctx as unknown;
      if (!(trx instanceof DirectTransaction)) return super.commit(ctx, eventBroadcaster, loggerContext);
      if (trx.savepoint) {
        await this.runOnDriver(trx.connection, `release savepoint ${trx.savepoint}`, [], true);
        trx.completed = true;
        return;
      }
      await eventBroadcaster?.dispatchEvent(EventType.beforeTransactionCommit, ctx);
      // A failed COMMIT leaves the transaction to the rollback the ORM makes next.
      await this.runOnDriver(trx.connection, 'commit', [], true);
      trx.completed = true;
      await trx.release(this.getKnex());
      await eventBroadcaster?.dispatchEvent(EventType.afterTransactionCommit, ctx);
    }

    override async rollback(
      ctx: Knex.Transaction,
      eventBroadcaster?: TransactionEventBroadcaster,
      loggerContext?: LogContext,
    ): Promise<void> {
      const trx = ctx as unknown;
      if (!(trx instanceof DirectTransaction)) return super.rollback(ctx, eventBroadcaster, loggerContext);
      if (trx.savepoint) {
        trx.completed = true;
        await this.runOnDriver(trx.connection, `rollback to savepoint ${trx.savepoint}`, [], true);
        return;
      }
      await eventBroadcaster?.dispatchEvent(EventType.beforeTransactionRollback, ctx);
      try {
        if (!trx.completed) await this.runOnDriver(trx.connection, 'rollback', [], true);
      } finally {
        trx.completed = true;
        await trx.release(this.getKnex());
      }
      await eventBroadcaster?.dispatchEvent(EventType.afterTransactionRollback, ctx);
    }
  }
  return DirectStatements;
}
