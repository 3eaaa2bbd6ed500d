import type { CommandHandler } from '../commands/handler';
import type { CliIo } from './io';

const CLI_ACTOR = { source: 'cli' } as const;

function parseArgs(text: string | undefined): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`JSON_ARGS is not valid JSON: ${(err as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new Error('JSON_ARGS must be a JSON object, for example \'{"project_id": "demo"}\'.');
  }
  return value as Record<string, unknown>;
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
  const result = await handler.execute(name, args, CLI_ACTOR);
  io.stdout(JSON.stringify(result));
  return 'error' in result ? 1 : 0;
}

/**
 * `aq exec -`: one `{"name", "args"}` object per input line, one result line each, in order and
 * in one session, so state such as the active project carries from line to line.
 */
export async function execStream(handler: CommandHandler, io: CliIo): Promise<number> {
  let failed = false;
  let lineNumber = 0;
  for await (const line of io.readLines()) {
    lineNumber++;
    if (line.trim() === '') continue;
    let request: { name?: unknown; args?: unknown };
    try {
      request = JSON.parse(line);
    } catch (err) {
      io.stdout(JSON.stringify({ error: `Line ${lineNumber} is not valid JSON: ${(err as Error).message}` }));
      failed = true;
      continue;
    }
    if (request === null || typeof request !== 'object' || typeof request.name !== 'string') {
      io.stdout(JSON.stringify({ error: `Line ${lineNumber} needs a "name" string, like {"name": "get_status", "args": {}}.` }));
      failed = true;
      continue;
    }
    const args = request.args && typeof request.args === 'object' && !Array.isArray(request.args) ? request.args : {};
    const result = await handler.execute(request.name, args as Record<string, unknown>, CLI_ACTOR);
    io.stdout(JSON.stringify(result));
    if ('error' in result) failed = true;
  }
  return failed ? 1 : 0;
}
