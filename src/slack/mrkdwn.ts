import type { KnownBlock } from '@slack/types';
import MarkdownIt from 'markdown-it';
import { esc, mdCode, preformatted } from './blocks/text';
import { wholeEnd } from '../util/whole-characters';

const md = new MarkdownIt({ html: false, linkify: false, breaks: false });

/** Longest text we put in one block (Slack's section limit is 3000). */
const BLOCK_TEXT = 2900;

interface Token {
  type: string;
  tag: string;
  content: string;
  markup: string;
  info: string;
  children: Token[] | null;
  attrGet(name: string): string | null;
}

/**
 * A link target as text people can read: http(s) and mailto only (anything else is dropped), escaped.
 * Links from Markdown are never written as <url|label>: a label could hide where the link goes,
 * so the address is shown next to the text and Slack links it itself.
 */
export function safeLinkTarget(href: string): string | null {
  if (!/^(https?:\/\/|mailto:)/i.test(href)) return null;
  return esc(href);
}

function inline(tokens: Token[]): string {
  let out = '';
  const links: Array<{ target: string | null; start: number }> = [];
  for (const t of tokens) {
    switch (t.type) {
      case 'text':
        out += esc(t.content);
        break;
      case 'code_inline':
        out += mdCode(t.content).text;
        break;
      case 'strong_open':
      case 'strong_close':
        out += '*';
        break;
      case 'em_open':
      case 'em_close':
        out += '_';
        break;
      case 's_open':
      case 's_close':
        out += '~';
        break;
      case 'link_open':
        links.push({ target: safeLinkTarget(t.attrGet('href') ?? ''), start: out.length });
        break;
      case 'link_close': {
        const link = links.pop();
        if (!link?.target) break;
        const label = out.slice(link.start);
        out = label === link.target || label === '' ? `${out.slice(0, link.start)}${link.target}` : `${out} (${link.target})`;
        break;
      }
      case 'softbreak':
      case 'hardbreak':
        out += '\n';
        break;
      default:
        out += esc(t.content ?? '');
    }
  }
  return out;
}

type Chunk = { kind: 'mrkdwn' | 'code'; text: string };

/** Markdown as a run of mrkdwn lines and literal code blocks. */
function chunks(markdown: string): Chunk[] {
  const tokens = md.parse(markdown, {}) as unknown as Token[];
  const out: Chunk[] = [];
  const lists: Array<{ ordered: boolean; n: number }> = [];
  let pendingPrefix = '';
  const line = (text: string) => out.push({ kind: 'mrkdwn', text });
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    switch (t.type) {
      case 'heading_open':
        line(`*${inline(tokens[i + 1].children ?? []).replace(/\*/g, '')}*`);
        i += 2;
        break;
      case 'bullet_list_open':
        lists.push({ ordered: false, n: 0 });
        break;
      case 'ordered_list_open':
        lists.push({ ordered: true, n: 0 });
        break;
      case 'bullet_list_close':
      case 'ordered_list_close':
        lists.pop();
        break;
      case 'list_item_open': {
        const list = lists.at(-1) ?? { ordered: false, n: 0 };
        list.n++;
        pendingPrefix = `${'    '.repeat(lists.length - 1)}${list.ordered ? `${list.n}.` : '•'} `;
        break;
      }
      case 'inline':
        line(pendingPrefix + inline(t.children ?? []));
        pendingPrefix = '';
        break;
      case 'fence':
      case 'code_block':
        out.push({ kind: 'code', text: t.content.replace(/\n$/, '') });
        break;
      case 'blockquote_open':
        pendingPrefix = '> ';
        break;
      case 'hr':
        line('―――');
        break;
      default:
        break;
    }
  }
  return out;
}

/** A code fence in mrkdwn; content with its own ``` cannot be fenced unchanged, so it is shown as escaped lines. */
function fence(code: string): string {
  return code.includes('```') ? esc(code) : `\`\`\`\n${esc(code)}\n\`\`\``;
}

/**
 * Agent, model and note Markdown → Slack mrkdwn: headings bold, **x** → *x*, links as
 * "text (address)" (http, https, mailto only), lists kept; every piece of text escaped, code included.
 */
export function markdownToMrkdwn(markdown: string): string {
  return chunks(markdown)
    .map((c) => (c.kind === 'code' ? fence(c.text) : c.text))
    .join('\n');
}

/**
 * The same Markdown as blocks, nothing cut: prose in mrkdwn sections (split at line breaks) and
 * code as literal preformatted blocks. Callers that must fit a message decide what to do with
 * more blocks than fit (see `fitBlocks` in blocks/long.ts).
 */
export function markdownToBlocks(markdown: string): KnownBlock[] {
  const blocks: KnownBlock[] = [];
  let prose: string[] = [];
  const flush = () => {
    if (prose.length) blocks.push(...proseSections(prose));
    prose = [];
  };
  for (const c of chunks(markdown)) {
    if (c.kind === 'mrkdwn') {
      prose.push(c.text);
      continue;
    }
    flush();
    for (let i = 0; i < c.text.length || i === 0; i += BLOCK_TEXT) blocks.push(preformatted(c.text.slice(i, i + BLOCK_TEXT)));
  }
  flush();
  return blocks;
}

function proseSections(lines: string[]): KnownBlock[] {
  const sections: KnownBlock[] = [];
  let current = '';
  const push = (text: string) => {
    if (text.trim()) sections.push({ type: 'section', text: { type: 'mrkdwn', text } });
  };
  for (const raw of lines) {
    // A single line longer than a block is split between words (entities are never split).
    const pieces = raw.length > BLOCK_TEXT ? splitLine(raw) : [raw];
    for (const piece of pieces) {
      if (current && current.length + 1 + piece.length > BLOCK_TEXT) {
        push(current);
        current = '';
      }
      current = current ? `${current}\n${piece}` : piece;
    }
  }
  push(current);
  return sections;
}

function splitLine(line: string): string[] {
  const out: string[] = [];
  let rest = line;
  while (rest.length > BLOCK_TEXT) {
    let at = rest.lastIndexOf(' ', BLOCK_TEXT);
    if (at < BLOCK_TEXT / 2) at = wholeEnd(rest, BLOCK_TEXT);
    const amp = rest.lastIndexOf('&', at);
    if (amp > at - 5 && !/^&(amp|lt|gt);/.test(rest.slice(amp, at))) at = amp;
    out.push(rest.slice(0, at));
    rest = rest.slice(at).replace(/^ /, '');
  }
  out.push(rest);
  return out;
}
