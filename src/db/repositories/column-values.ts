/*
 * Column values as either database returns them to a plain statement: the readers that map rows
 * to records without the ORM read booleans and datetimes through these.
 */

/** A boolean column: true/false on PostgreSQL, 1/0 on SQLite. */
export function storedFlag(value: unknown): boolean {
  return value === true || Number(value) === 1;
}

/** A nullable datetime column, stored as epoch milliseconds (a number, or text from a bigint). */
export function storedDate(value: unknown): Date | null {
  return value === null || value === undefined ? null : new Date(Number(value));
}

/** A value for a nullable JSON column: null stays SQL NULL, anything else is stored as its JSON text. */
export function storableJson(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

/**
 * A JSON column read as its text (`cast(… as text)`: PostgreSQL would return it parsed, SQLite as
 * text), parsed here; null for SQL null or a missing row.
 */
export function storedJson(text: string | null | undefined): unknown {
  return text === null || text === undefined ? null : JSON.parse(text);
}
