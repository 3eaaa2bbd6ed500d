import MarkdownIt from 'markdown-it';

const md = new MarkdownIt({ html: false, linkify: false, breaks: false });

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

interface Token {
  type: string;
  tag: string;
  content: string;
  markup: string;
  info: string;
  children: Token[] | null;
  attrGet(name: string): string | null;
}

function inline(tokens: Token[]): string {
  let out = '';
  const links: string[] = [];
  for (const t of tokens) {
    switch (t.type) {
      case 'text':
        out += escape(t.content);
        break;
      case 'code_inline':
        out += `\`${t.content}\``;
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
        links.push(t.attrGet('href') ?? '');
        out += '<' + (links.at(-1) ?? '') + '|';
        break;
      case 'link_close':
        links.pop();
        out += '>';
        break;
      case 'softbreak':
      case 'hardbreak':
        out += '\n';
        break;
      default:
        out += escape(t.content ?? '');
    }
  }
  // Slack's <url|text> needs the text; an empty one would show as "|".
  return out.replace(/<([^|>]+)\|>/g, '<$1>');
}

/** Agent and note Markdown → Slack mrkdwn: headings bold, **x** → *x*, links <url|text>, lists kept. */
export function markdownToMrkdwn(markdown: string): string {
  const tokens = md.parse(markdown, {}) as unknown as Token[];
  const lines: string[] = [];
  const lists: Array<{ ordered: boolean; n: number }> = [];
  let pendingPrefix = '';
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    switch (t.type) {
      case 'heading_open':
        lines.push(`*${inline(tokens[i + 1].children ?? []).replace(/\*/g, '')}*`);
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
        const list = lists.at(-1)!;
        list.n++;
        pendingPrefix = `${'    '.repeat(lists.length - 1)}${list.ordered ? `${list.n}.` : '•'} `;
        break;
      }
      case 'inline':
        lines.push(pendingPrefix + inline(t.children ?? []));
        pendingPrefix = '';
        break;
      case 'fence':
      case 'code_block':
        lines.push(`\`\`\`\n${t.content.replace(/\n$/, '')}\n\`\`\``);
        break;
      case 'blockquote_open':
        pendingPrefix = '> ';
        break;
      case 'hr':
        lines.push('―――');
        break;
      default:
        break;
    }
  }
  return lines.join('\n');
}
