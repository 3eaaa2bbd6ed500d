import type { CommandHandler } from '../commands/handler';
import { type CliIo, MAX_LINE_BYTES, type OversizedLine } from './io';
import { errorMessage } from '../util/error-message';
import { jsonWithDirectionEscaped } from '../util/hidden-characters';
import { shorten } from '../util/whole-characters';

const CLI_ACTOR = { source: 'cli' } as const;

/** A size in MB with one decimal, rounded up so a line just over the limit never reads as equal to it. */
function megabytes(bytes: number): string {
  return `${(Math.ceil((bytes / (1024 * 1024)) * 10) / 10).toFixed(1)} MB`;
}

const TOO_LARGE = `larger than the ${megabytes(MAX_LINE_BYTES)} the CLI reads`;

/** JSON.parse's own complaint, on one line and without the input it quotes (which may be huge). */
function jsonProblem(err: unknown): string {
  const text = errorMessage(err);
  const firstLine = text.split('\n', 1)[0] ?? '';
  return shorten(firstLine, 200);
}

function parseArgs(text: string | undefined): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  if (Buffer.byteLength(text) > MAX_LINE_BYTES) throw new Error(`JSON_ARGS is ${TOO_LARGE}.`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`JSON_ARGS is not valid JSON: ${jsonProblem(err)}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new Error('JSON_ARGS must be a JSON object, for example \'{"project_id": "demo"}\'.');
  }
  return value as Record<string, unknown>;
}

/**
 * One result line; a result that cannot be written as JSON is reported instead of crashing. Text
 * that would reorder the line on a terminal is written escaped (the same JSON to a program).
 */
function resultLine(result: Record<string, unknown>): string {
  try {
    return jsonWithDirectionEscaped(JSON.stringify(result));
  } catch {
    return JSON.stringify({ error: "The result could not be written as JSON; the details are in the app's log." });
  }
}

/** `aq exec NAME [JSON_ARGS]`: one command, one JSON line. Returns the exit code. */
export async function execOne(handler: CommandHandler, name: string, jsonArgs: string | undefined, io: CliIo): Promise<number> {
  let args: Record<string, unknown>;
  try {
    args = parseArgs(jsonArgs);
  } catch (err) {
    io.stderr((err as Error).message);
    return 2;
  }
  const result = await handler.executeAny(name, args, CLI_ACTOR);
  io.stdout(resultLine(result));
  return 'error' in result ? 1 : 0;
}

/** The result of one input line of `aq exec -`. */
async function runLine(handler: CommandHandler, line: string | OversizedLine, lineNumber: number): Promise<Record<string, unknown> | null> {
  if (typeof line !== 'string' || Buffer.byteLength(line) > MAX_LINE_BYTES) {
    const bytes = typeof line === 'string' ? Buffer.byteLength(line) : line.bytes;
    return { error: `Line ${lineNumber} is ${megabytes(bytes)}, ${TOO_LARGE}; it was skipped.` };
  }
  if (line.trim() === '') return null;
  let request: { name?: unknown; args?: unknown };
  try {
    request = JSON.parse(line);
  } catch (err) {
    return { error: `Line ${lineNumber} is not valid JSON: ${jsonProblem(err)}` };
  }
  if (request === null || typeof request !== 'object' || typeof request.name !== 'string') {
    return { error: `Line ${lineNumber} needs a "name" string, like {"name": "get_status", "args": {}}.` };
  }
  const args = request.args && typeof request.args === 'object' && !Array.isArray(request.args) ? request.args : {};
  return handler.executeAny(request.name, args as Record<string, unknown>, CLI_ACTOR);
}

/**
 * `aq exec -`: one `{"name", "args"}` object per input line, one result line each, in order and
 * in one session, so state such as the active project carries from line to line. A bad line
 * (not JSON, too large, too deep) gets a one-line error and the session goes on.
 */
export async function execStream(handler: CommandHandler, io: CliIo): Promise<number> {
  let failed = false;
  let lineNumber = 0;
  for await (const line of io.readLines()) {
    lineNumber++;
    let result: Record<string, unknown> | null;
    try {
      result = await runLine(handler, line, lineNumber);
    } catch {
      result = { error: `Line ${lineNumber} could not be run; the details are in the app's log.` };
    }
    if (result === null) continue;
    io.stdout(resultLine(result));
    if ('error' in result) failed = true;
  }
  return failed ? 1 : 0;
}
