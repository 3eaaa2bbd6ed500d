import { randomBytes } from 'node:crypto';

/** The migrated database every test database is copied from (CREATE DATABASE … TEMPLATE). */
export const TEMPLATE_DATABASE = 'aq_template';

/** Set by the global setup: postgres://… of the test server, without a database name. */
export const SERVER_URL_VARIABLE = 'AQ_TEST_POSTGRES_SERVER';

/** `postgresql` runs makeTestRuntime (and testDatabaseTarget) on the test server; anything else, SQLite. */
export const TEST_DATABASE_VARIABLE = 'AQ_TEST_DATABASE';

interface PgClient {
  connect(): Promise<void>;
  query(sql: string): Promise<unknown>;
  end(): Promise<void>;
}
// pg ships no types; this is the little of it used here.
const { Client } = require('pg') as { Client: new (url: string) => PgClient };

export function onPostgres(): boolean {
  return process.env[TEST_DATABASE_VARIABLE] === 'postgresql';
}

function serverUrl(): string {
  const url = process.env[SERVER_URL_VARIABLE];
  if (!url) throw new Error(`${SERVER_URL_VARIABLE} is not set: the Jest global setup starts the test PostgreSQL server.`);
  return url;
}

export async function adminQuery(sql: string, base = serverUrl()): Promise<void> {
  const client = new Client(`${base}/postgres`);
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A fresh, migrated database (a copy of the template) and its removal. */
export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `aq_t_${randomBytes(6).toString('hex')}`;
  await adminQuery(`create database ${name} template ${TEMPLATE_DATABASE}`);
  return {
    url: `${serverUrl()}/${name}`,
    drop: () => adminQuery(`drop database if exists ${name} with (force)`),
  };
}
