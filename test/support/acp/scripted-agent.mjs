#!/usr/bin/env node
/**
 * A scripted ACP agent for tests: a real stdio agent built from the SDK's agent side, run with
 * `node`. What a turn does comes from directives in the prompt (a task's description), one per
 * line:
 *
 *   acp:write <file> <content>   writes the file in the workspace through the client's fs method
 *   acp:ask <command>            asks permission to run a shell command (kind execute)
 *   acp:plan <step>; <step>      reports a plan
 *   acp:wait                     works until the client cancels the turn
 *   acp:limit <ISO time>         refuses the turn with a usage limit that resets then
 *   acp:no-usage                 reports no token usage and no cost
 *   acp:peek <file>              reads the file from its own process (as a shell command it ran
 *                                would) and reports what it read, "(empty)", or why it could not
 *   acp:put <file> <content>     writes the file (relative to the workspace) from its own process
 *                                and reports "put <file>" or why it could not
 *   acp:connect <socket>         connects to a Unix socket from its own process and reports what
 *                                it answered, or why it could not
 *
 * `$TMPDIR` in a directive is the agent's own TMPDIR.
 *
 * ACP_SCRIPTED_NO_LOAD=1 makes it an agent that cannot load sessions.
 * Every turn reports a message, a tool call, token usage (unless told not to) and a cost, and
 * ends with "Done: <what happened>". Sessions are kept as files in ACP_SCRIPTED_STATE (so a
 * later process can load them), and every prompt received is appended to prompts.log there.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { agent, ndJsonStream, PROTOCOL_VERSION, RequestError } from '@agentclientprotocol/sdk';

const stateDir = process.env.ACP_SCRIPTED_STATE;
if (!stateDir) {
  process.stderr.write('ACP_SCRIPTED_STATE must name a writable folder.\n');
  process.exit(2);
}
mkdirSync(stateDir, { recursive: true });
const sessionFile = (id) => path.join(stateDir, `session-${id}.json`);
const cancelled = new Map();
let capabilities = {};

function textOf(prompt) {
  return prompt
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
}

function directives(text) {
  return text
    .split('\n')
    .map((line) => /^\s*acp:(\S+)\s*(.*)$/.exec(line))
    .filter(Boolean)
    .map((m) => ({ verb: m[1], rest: m[2].trim().replaceAll('$TMPDIR', process.env.TMPDIR ?? '$TMPDIR') }));
}

async function say(client, sessionId, text) {
  await client.notify('session/update', { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } });
}

const app = agent({ name: 'scripted-acp-agent' })
  .onRequest('initialize', ({ params }) => {
    capabilities = params.clientCapabilities ?? {};
    return {
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: { loadSession: process.env.ACP_SCRIPTED_NO_LOAD !== '1' },
      agentInfo: { name: 'scripted-acp-agent', version: '1.0.0' },
    };
  })
  .onRequest('session/new', ({ params }) => {
    const sessionId = `scripted-${process.pid}-${Date.now()}`;
    writeFileSync(sessionFile(sessionId), JSON.stringify({ cwd: params.cwd, prompts: [] }));
    return { sessionId };
  })
  .onRequest('session/load', async ({ params, client }) => {
    if (!existsSync(sessionFile(params.sessionId))) throw RequestError.resourceNotFound(params.sessionId);
    const session = JSON.parse(readFileSync(sessionFile(params.sessionId), 'utf8'));
    // A load replays the conversation so far, as ACP asks, with the session's cost so far.
    for (const prompt of session.prompts) {
      await client.notify('session/update', {
        sessionId: params.sessionId,
        update: { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: prompt } },
      });
      await say(client, params.sessionId, 'An answer from before. ');
    }
    await client.notify('session/update', {
      sessionId: params.sessionId,
      update: { sessionUpdate: 'usage_update', used: 1200, size: 200000, cost: { amount: 0.25 * session.prompts.length, currency: 'USD' } },
    });
    return {};
  })
  .onNotification('session/cancel', ({ params }) => {
    appendFileSync(path.join(stateDir, 'cancels.log'), `${params.sessionId}\n`);
    cancelled.get(params.sessionId)?.();
  })
  .onRequest('session/prompt', async ({ params, client }) => {
    const { sessionId } = params;
    const session = JSON.parse(readFileSync(sessionFile(sessionId), 'utf8'));
    const text = textOf(params.prompt);
    appendFileSync(path.join(stateDir, 'prompts.log'), `${JSON.stringify({ sessionId, text })}\n`);
    session.prompts.push(text);
    writeFileSync(sessionFile(sessionId), JSON.stringify(session));
    const done = [];
    let reportUsage = true;
    await say(client, sessionId, `Working in ${session.cwd}. `);
    for (const { verb, rest } of directives(text)) {
      if (verb === 'limit') {
        throw new RequestError(-32000, `You've hit your usage limit. Try again at ${rest}.`, { resetsAt: rest });
      }
      if (verb === 'no-usage') reportUsage = false;
      if (verb === 'plan') {
        const entries = rest.split(';').map((content) => ({ content: content.trim(), priority: 'medium', status: 'pending' }));
        await client.notify('session/update', { sessionId, update: { sessionUpdate: 'plan', entries } });
      }
      if (verb === 'write') {
        const [file, ...content] = rest.split(' ');
        const target = path.resolve(session.cwd, file);
        await client.notify('session/update', {
          sessionId,
          update: {
            sessionUpdate: 'tool_call',
            toolCallId: `write-${file}`,
            title: `Write ${file}`,
            kind: 'edit',
            status: 'in_progress',
            locations: [{ path: target }],
          },
        });
        if (!capabilities.fs?.writeTextFile) throw new RequestError(-32000, 'This agent needs a client that writes files.');
        try {
          await client.request('fs/write_text_file', { sessionId, path: target, content: `${content.join(' ')}\n` });
          done.push(`wrote ${file}`);
        } catch (err) {
          done.push(`could not write ${file}: ${err.message}`);
        }
      }
      if (verb === 'ask') {
        const answer = await client.request('session/request_permission', {
          sessionId,
          toolCall: {
            toolCallId: `ask-${Date.now()}`,
            title: `Run ${rest}`,
            kind: 'execute',
            status: 'pending',
            rawInput: { command: rest },
          },
          options: [
            { optionId: 'yes', name: 'Allow', kind: 'allow_once' },
            { optionId: 'always', name: 'Always allow', kind: 'allow_always' },
            { optionId: 'no', name: 'Reject', kind: 'reject_once' },
          ],
        });
        const chosen = answer.outcome.outcome === 'selected' ? answer.outcome.optionId : 'cancelled';
        done.push(`permission for ${rest}: ${chosen}`);
      }
      if (verb === 'peek') {
        let seen;
        try {
          seen = readFileSync(rest, 'utf8').trim() || '(empty)';
        } catch (err) {
          seen = `unreadable (${err.code})`;
        }
        done.push(`peeked ${rest}: ${seen}`);
      }
      if (verb === 'connect') {
        const answer = await new Promise((resolve) => {
          const parts = [];
          net
            .connect(rest)
            .on('data', (data) => parts.push(data))
            .on('end', () => resolve(`answered ${Buffer.concat(parts).toString().trim()}`))
            .on('error', (err) => resolve(`refused (${err.code})`));
        });
        done.push(`connected to ${rest}: ${answer}`);
      }
      if (verb === 'put') {
        const [file, ...content] = rest.split(' ');
        try {
          writeFileSync(path.resolve(session.cwd, file), `${content.join(' ')}\n`);
          done.push(`put ${file}`);
        } catch (err) {
          done.push(`could not put ${file} (${err.code})`);
        }
      }
      if (verb === 'wait') {
        await say(client, sessionId, 'Waiting until I am cancelled. ');
        await new Promise((resolve) => cancelled.set(sessionId, resolve));
        cancelled.delete(sessionId);
        return { stopReason: 'cancelled' };
      }
    }
    if (reportUsage) {
      await client.notify('session/update', {
        sessionId,
        update: {
          sessionUpdate: 'usage_update',
          used: 1200,
          size: 200000,
          cost: { amount: 0.25 * session.prompts.length, currency: 'USD' },
        },
      });
    }
    const heard = session.prompts.length > 1 ? ` I have heard ${session.prompts.length} prompts in this session.` : '';
    await say(client, sessionId, `Done: ${done.join('; ') || 'nothing to do'}.${heard}`);
    return {
      stopReason: 'end_turn',
      ...(reportUsage && { usage: { totalTokens: 1500, inputTokens: 1000, outputTokens: 300, cachedReadTokens: 200 } }),
    };
  });

app.connect(ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
