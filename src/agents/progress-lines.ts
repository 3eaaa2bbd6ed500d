import path from 'node:path';
import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { shorten } from '../util/whole-characters';

/** What an agent is doing, as the short lines a task's thread shows while it runs. */

const LINE_LIMIT = 300;

/** Text on one line (whitespace runs made one space), cut with an ellipsis past `limit`. */
export function oneLine(text: string, limit = LINE_LIMIT): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return shorten(flat, limit);
}

/** A tool call as one short line: `Bash · npm test`, `Write · src/a.ts`. */
export function describeToolUse(name: string, input: unknown, cwd: string): string {
  const args = (input ?? {}) as Record<string, unknown>;
  const rel = (p: unknown) => (typeof p === 'string' ? (path.isAbsolute(p) ? path.relative(cwd, p) || '.' : p) : '');
  let detail = '';
  if (typeof args.command === 'string') detail = args.command;
  else if (args.file_path !== undefined) detail = rel(args.file_path);
  else if (typeof args.pattern === 'string') detail = args.pattern;
  else if (args.path !== undefined) detail = rel(args.path);
  return oneLine(detail ? `${name} · ${detail}` : name);
}

/** Progress lines for one message of the Claude Agent SDK (assistant text and tool calls only). */
export function progressLines(message: SDKMessage, cwd: string): string[] {
  if (message.type !== 'assistant' || message.parent_tool_use_id) return [];
  const lines: string[] = [];
  for (const block of message.message.content as Array<{ type: string; text?: string; name?: string; input?: unknown }>) {
    if (block.type === 'text' && block.text?.trim()) lines.push(oneLine(block.text));
    else if (block.type === 'tool_use' && block.name) lines.push(describeToolUse(block.name, block.input, cwd));
  }
  return lines;
}
