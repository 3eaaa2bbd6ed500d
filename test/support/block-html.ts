/**
 * Block Kit as plain HTML, roughly as Slack draws it (a ~600px column, grey context lines, pill
 * buttons), so a person can look at what the renderers send without a Slack workspace. A dev
 * tool: it approximates, it does not validate (the fake Slack's validator does that).
 */

// biome-ignore lint/suspicious/noExplicitAny: Block Kit JSON of any shape is walked loosely; this only draws it.
type Obj = Record<string, any>;

const EMOJI: Record<string, string> = {
  warning: '⚠️',
  white_check_mark: '✅',
  information_source: 'ℹ️',
  thought_balloon: '💭',
  grey_question: '❔',
  double_vertical_bar: '⏸️',
  arrow_forward: '▶️',
  x: '❌',
  wave: '👋',
  seedling: '🌱',
  no_entry_sign: '🚫',
  arrows_counterclockwise: '🔄',
  hourglass_flowing_sand: '⏳',
  lock: '🔒',
  robot_face: '🤖',
  speech_balloon: '💬',
  heavy_check_mark: '✔️',
  link: '🔗',
  memo: '📝',
  tada: '🎉',
  eyes: '👀',
  question: '❓',
  gear: '⚙️',
};

function html(text: unknown): string {
  return String(text ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

const shortcodes = (s: string) => s.replace(/:([a-z0-9_+-]+):/g, (m, name: string) => EMOJI[name] ?? m);

/** Slack mrkdwn (already &-escaped by its author) to HTML. */
export function mrkdwnHtml(text: string): string {
  const blocks: string[] = [];
  // Code blocks first: nothing inside them is formatted.
  let s = text.replace(/```([\s\S]*?)```/g, (_m, code: string) => {
    blocks.push(`<pre>${code.replace(/"/g, '&quot;')}</pre>`);
    return `\uE000${blocks.length - 1}\uE000`;
  });
  s = s.replace(/"/g, '&quot;');
  const spans: string[] = [];
  s = s.replace(/`([^`\n]+)`/g, (_m, code: string) => {
    spans.push(`<code>${code}</code>`);
    return `\uE001${spans.length - 1}\uE001`;
  });
  s = s.replace(/<([^<>|]+)(?:\|([^<>]+))?>/g, (_m, target: string, label?: string) => {
    if (target.startsWith('@')) return `<span class="mention">@${label ?? target.slice(1)}</span>`;
    if (target.startsWith('#')) return `<span class="mention">#${label ?? target.slice(1)}</span>`;
    if (target.startsWith('!')) return `<span class="mention">@${target.slice(1).split('^')[0]}</span>`;
    return `<a href="${target}">${label ?? target}</a>`;
  });
  s = s
    .replace(/(^|[\s(>])\*([^*\n]+)\*/g, '$1<b>$2</b>')
    .replace(/(^|[\s(>])_([^_\n]+)_/g, '$1<i>$2</i>')
    .replace(/(^|[\s(>])~([^~\n]+)~/g, '$1<s>$2</s>');
  s = s
    .split('\n')
    .map((line) => (line.startsWith('&gt; ') || line === '&gt;' ? `<blockquote>${line.slice(5)}</blockquote>` : line))
    .join('\n');
  s = shortcodes(s).replace(/\n/g, '<br>');
  s = s.replace(/\uE001(\d+)\uE001/g, (_m, i: string) => spans[Number(i)]);
  return s.replace(/\uE000(\d+)\uE000/g, (_m, i: string) => blocks[Number(i)]);
}

function textObj(t: Obj | undefined): string {
  if (!t) return '';
  if (t.type === 'mrkdwn') return mrkdwnHtml(t.text);
  return shortcodes(html(t.text)).replace(/\n/g, '<br>');
}

function richElement(e: Obj): string {
  switch (e.type) {
    case 'text': {
      let out = shortcodes(html(e.text)).replace(/\n/g, '<br>');
      const st = e.style ?? {};
      if (st.code) out = `<code>${out}</code>`;
      if (st.bold) out = `<b>${out}</b>`;
      if (st.italic) out = `<i>${out}</i>`;
      if (st.strike) out = `<s>${out}</s>`;
      return out;
    }
    case 'link':
      return `<a href="${html(e.url)}">${html(e.text ?? e.url)}</a>`;
    case 'emoji':
      return EMOJI[e.name] ?? e.unicode ?? `:${e.name}:`;
    case 'user':
      return `<span class="mention">@${html(e.user_id)}</span>`;
    case 'channel':
      return `<span class="mention">#${html(e.channel_id)}</span>`;
    case 'broadcast':
      return `<span class="mention">@${html(e.range)}</span>`;
    default:
      return html(e.text ?? '');
  }
}

function richText(block: Obj): string {
  return block.elements
    .map((part: Obj) => {
      const inner = (els: Obj[]) => els.map(richElement).join('');
      switch (part.type) {
        case 'rich_text_preformatted':
          return `<pre>${inner(part.elements)}</pre>`;
        case 'rich_text_quote':
          return `<blockquote>${inner(part.elements)}</blockquote>`;
        case 'rich_text_list': {
          const tag = part.style === 'ordered' ? 'ol' : 'ul';
          return `<${tag}>${part.elements.map((item: Obj) => `<li>${inner(item.elements)}</li>`).join('')}</${tag}>`;
        }
        default:
          return `<div>${inner(part.elements)}</div>`;
      }
    })
    .join('');
}

function element(e: Obj): string {
  switch (e.type) {
    case 'button':
      return `<span class="btn ${html(e.style ?? '')}" title="${html(e.action_id)}">${textObj(e.text)}</span>`;
    case 'overflow':
      return '<span class="btn">⋯</span>';
    case 'static_select':
    case 'external_select':
    case 'users_select':
    case 'conversations_select':
    case 'channels_select': {
      const chosen = e.initial_option ? textObj(e.initial_option.text) : textObj(e.placeholder) || 'Select…';
      return `<span class="select">${chosen} ▾</span>`;
    }
    case 'multi_static_select':
    case 'multi_users_select':
    case 'multi_conversations_select':
      return `<span class="select">${textObj(e.placeholder) || 'Select…'} ▾</span>`;
    case 'plain_text_input':
      return `<div class="textbox${e.multiline ? ' multi' : ''}">${html(e.initial_value ?? '') || `<span class="ph">${textObj(e.placeholder)}</span>`}</div>`;
    case 'radio_buttons':
    case 'checkboxes':
      return (e.options ?? [])
        .map(
          (o: Obj) =>
            `<div class="opt">${e.type === 'radio_buttons' ? '◯' : '☐'} ${textObj(o.text)}${o.description ? `<div class="ctx">${textObj(o.description)}</div>` : ''}</div>`,
        )
        .join('');
    case 'image':
      return `<span class="img">[image: ${html(e.alt_text)}]</span>`;
    case 'feedback_buttons':
      return `<span class="btn">${textObj(e.positive_button?.text)}</span><span class="btn">${textObj(e.negative_button?.text)}</span>`;
    case 'icon_button':
      return `<span class="btn">${textObj(e.text)}</span>`;
    case 'datepicker':
    case 'timepicker':
      return `<span class="select">${html(e.type)}</span>`;
    default:
      return `<span class="unknown">[${html(e.type)}]</span>`;
  }
}

/** A data_table: its first page (page_size rows), the header row bold, and how many pages there are. */
function dataTable(b: Obj): string {
  const [header, ...rows] = b.rows as Obj[][];
  const size = b.page_size ?? 5;
  const cell = (c: Obj) => (c.type === 'rich_text' ? richText(c) : html(c.text ?? String(c.value ?? '')));
  const head = `<tr>${header.map((c) => `<th>${cell(c)} ⇅</th>`).join('')}</tr>`;
  const body = rows
    .slice(0, size)
    .map((r) => `<tr>${r.map((c) => `<td${c.type === 'raw_number' ? ' class="num"' : ''}>${cell(c)}</td>`).join('')}</tr>`)
    .join('');
  const pages = Math.ceil(rows.length / size);
  return `<table class="dt"><caption>${html(b.caption)}</caption>${head}${body}</table><div class="ctx">1–${Math.min(size, rows.length)} of ${rows.length} · page 1 of ${pages} ‹ ›</div>`;
}

export function blockHtml(b: Obj): string {
  switch (b.type) {
    case 'header':
      return `<h1>${textObj(b.text)}</h1>`;
    case 'divider':
      return '<hr>';
    case 'section': {
      const fields = b.fields ? `<div class="fields">${b.fields.map((f: Obj) => `<div>${textObj(f)}</div>`).join('')}</div>` : '';
      const accessory = b.accessory ? `<div class="acc">${element(b.accessory)}</div>` : '';
      return `<div class="section"><div class="body">${textObj(b.text)}${fields}</div>${accessory}</div>`;
    }
    case 'context':
      return `<div class="ctx">${b.elements.map((e: Obj) => (e.type === 'image' ? '▫️' : textObj(e))).join(' ')}</div>`;
    case 'actions':
      return `<div class="actions">${b.elements.map(element).join('')}</div>`;
    case 'rich_text':
      return `<div class="rich">${richText(b)}</div>`;
    case 'markdown':
      return `<div class="section">${html(b.text)
        .replace(/\*\*([^*]+)\*\*/g, '<b>$1</b>')
        .replace(/\n/g, '<br>')}</div>`;
    case 'input':
      return `<div class="input"><label>${textObj(b.label)}${b.optional ? ' <span class="ctx">(optional)</span>' : ''}</label>${element(b.element)}${b.hint ? `<div class="ctx">${textObj(b.hint)}</div>` : ''}</div>`;
    case 'image':
      return `<div class="img">[image: ${html(b.alt_text)}]</div>`;
    case 'context_actions':
      return `<div class="actions">${b.elements.map(element).join('')}</div>`;
    case 'data_table':
      return dataTable(b);
    case 'plan':
      return `<div class="plan"><div class="plan-title">${html(b.title)}</div>${(b.tasks ?? []).map(blockHtml).join('')}</div>`;
    case 'task_card': {
      const icon = { pending: '○', in_progress: '◐', complete: '✔', error: '✖' }[String(b.status)] ?? '○';
      return `<div class="card ${html(b.status)}"><span class="icon">${icon}</span>${html(b.title)}</div>`;
    }
    default:
      return `<div class="unknown">[${html(b.type)} block]</div>`;
  }
}

const CSS = `
body{margin:0;background:#f4f4f5;font:15px/1.46 -apple-system,"Segoe UI","Noto Sans",Helvetica,Arial,sans-serif;color:#1d1c1d}
.frame{width:600px;margin:12px;background:#fff;border:1px solid #ddd;border-radius:8px;padding:12px 16px}
.label{font:600 12px sans-serif;color:#616061;text-transform:uppercase;letter-spacing:.04em;margin:0 0 6px}
.msg{display:flex;gap:8px;padding:6px 0}.avatar{width:36px;height:36px;border-radius:6px;background:#4a154b;color:#fff;font-weight:700;display:flex;align-items:center;justify-content:center;flex:none}
.who{font-weight:900}.who .app{font-weight:400;font-size:11px;background:#eee;color:#616061;padding:0 3px;border-radius:2px;margin-left:4px}
.fallback{color:#616061;font-size:12px;border-left:3px solid #e8912d;padding-left:6px;margin:4px 0}
.thread{border-left:2px solid #ddd;margin-left:18px;padding-left:12px}
h1{font-size:18px;font-weight:900;margin:6px 0}
hr{border:0;border-top:1px solid #e2e2e2;margin:10px 0}
.dt{border-collapse:collapse;width:100%;font-size:13px;margin:6px 0}.dt caption{text-align:left;color:#616061;font-size:12px}
.dt th,.dt td{border:1px solid #e2e2e2;padding:3px 6px;text-align:left}.dt th{background:#f8f8f8}.dt td.num{text-align:right}
.section{display:flex;gap:10px;margin:6px 0}.section .body{flex:1}.acc{flex:none}
.fields{display:grid;grid-template-columns:1fr 1fr;gap:6px 16px;margin-top:4px}
.ctx{color:#616061;font-size:12.5px;margin:4px 0}
.actions{display:flex;flex-wrap:wrap;gap:8px;margin:8px 0}
.btn{display:inline-block;border:1px solid #c8c8c8;border-radius:6px;padding:3px 12px;font-weight:700;font-size:14px;background:#fff;white-space:nowrap}
.btn.primary{background:#007a5a;border-color:#007a5a;color:#fff}.btn.danger{background:#fff;border-color:#e01e5a;color:#e01e5a}
.select{display:inline-block;border:1px solid #c8c8c8;border-radius:6px;padding:3px 10px;font-size:14px;min-width:140px}
.rich{margin:6px 0}.rich ul,.rich ol{margin:2px 0;padding-left:22px}
pre{background:#f8f8f8;border:1px solid #ddd;border-radius:4px;padding:8px;font:12.5px/1.4 Menlo,Consolas,monospace;white-space:pre-wrap;margin:4px 0}
code{background:#f6f6f6;border:1px solid #ddd;border-radius:3px;padding:0 3px;color:#c01343;font:12.5px Menlo,Consolas,monospace}
blockquote{border-left:4px solid #ddd;margin:2px 0;padding-left:10px}
a{color:#1264a3;text-decoration:none}.mention{background:#e8f5fa;color:#1264a3;border-radius:3px;padding:0 2px}
.input{margin:10px 0}.input label{display:block;font-weight:700;margin-bottom:4px}
.textbox{border:1px solid #bbb;border-radius:4px;padding:6px 8px;min-height:20px}.textbox.multi{min-height:60px}.ph{color:#999}
.plan{border:1px solid #ddd;border-radius:8px;padding:6px 10px;margin:6px 0}.plan-title{font-weight:700;margin-bottom:4px}
.card{padding:3px 0;display:flex;gap:8px}.card .icon{width:16px;text-align:center;color:#616061}.card.complete .icon{color:#007a5a}.card.error .icon{color:#e01e5a}.card.in_progress .icon{color:#e8912d}
.room-name{font-weight:900;font-size:17px;margin-bottom:6px}
.bar{display:flex;flex-wrap:wrap;gap:6px;align-items:center;background:#f8f8f8;border:1px solid #e2e2e2;border-radius:6px;padding:6px 8px;font-size:13px}
.bar-item{display:inline-flex;gap:4px;align-items:center;border-right:1px solid #ddd;padding-right:8px}.bar-icon{color:#616061;font-size:11px;text-transform:uppercase}
.tabs{display:flex;gap:14px;border-bottom:1px solid #ddd;margin:8px 0 4px;font-size:14px}.tab{padding:4px 0;color:#616061}.tab.on{color:#1d1c1d;font-weight:700;border-bottom:2px solid #1264a3}
.opt{margin:3px 0}.unknown{color:#c00;font-family:monospace}.img{color:#888}
.modal-title{display:flex;justify-content:space-between;font-weight:900;font-size:18px;border-bottom:1px solid #ddd;padding-bottom:8px;margin-bottom:8px}
.modal-foot{display:flex;justify-content:flex-end;gap:8px;border-top:1px solid #ddd;padding-top:10px;margin-top:10px}
`;

/** One thing to draw: a message (optionally in a thread), a modal, or a Home tab. */
export type Surface =
  | { kind: 'message'; label?: string; text?: string; blocks?: Obj[]; thread?: Array<{ text?: string; blocks?: Obj[] }> }
  | { kind: 'modal'; label?: string; view: Obj }
  | { kind: 'home'; label?: string; view: Obj }
  | {
      kind: 'room';
      label?: string;
      /** The room's name, its context bar (agents.conversations.setProperties) and its view tabs. */
      name: string;
      contextBar: Array<{ key: string; label: string; icon?: string; url?: string; item_type?: string }>;
      tabs: string[];
      messages: Array<{ text?: string; blocks?: Obj[] }>;
    };

function message(m: { text?: string; blocks?: Obj[] }): string {
  const body = m.blocks?.length ? m.blocks.map(blockHtml).join('') : mrkdwnHtml(m.text ?? '');
  return `<div class="msg"><div class="avatar">AQ</div><div style="flex:1;min-width:0"><div class="who">Agent Queue<span class="app">APP</span></div>${body}</div></div>`;
}

export function surfaceHtml(s: Surface): string {
  const label = s.label ? `<div class="label">${html(s.label)}</div>` : '';
  if (s.kind === 'message') {
    const thread = s.thread?.length ? `<div class="thread">${s.thread.map(message).join('')}</div>` : '';
    return `<div class="frame">${label}${message(s)}${thread}</div>`;
  }
  if (s.kind === 'room') {
    const item = (i: { label: string; icon?: string; url?: string; item_type?: string }) =>
      i.item_type === 'action'
        ? `<span class="btn primary">${html(i.label)}</span>`
        : `<span class="bar-item">${i.icon ? `<span class="bar-icon">${html(i.icon)}</span>` : ''}${i.url ? `<a>${html(i.label)}</a>` : html(i.label)}</span>`;
    const tabs = ['Messages', ...s.tabs].map((t, i) => `<span class="tab${i === 0 ? ' on' : ''}">${html(t)}</span>`).join('');
    return `<div class="frame">${label}<div class="room-name"># ${html(s.name)}</div><div class="bar">${s.contextBar.map(item).join('')}</div><div class="tabs">${tabs}</div>${s.messages.map(message).join('')}</div>`;
  }
  if (s.kind === 'modal') {
    const v = s.view;
    const foot = `<div class="modal-foot"><span class="btn">${textObj(v.close) || 'Cancel'}</span>${v.submit ? `<span class="btn primary">${textObj(v.submit)}</span>` : ''}</div>`;
    return `<div class="frame" style="width:520px">${label}<div class="modal-title">${textObj(v.title)}<span>✕</span></div>${v.blocks.map(blockHtml).join('')}${foot}</div>`;
  }
  return `<div class="frame">${label}${s.view.blocks.map(blockHtml).join('')}</div>`;
}

/** A whole page; the script in it records the page's height for the screenshot. */
export function pageHtml(surfaces: Surface[]): string {
  return `<!doctype html><html><head><meta charset="utf-8"><style>${CSS}</style></head><body>${surfaces.map(surfaceHtml).join('')}<script>document.title='h'+Math.ceil(document.body.getBoundingClientRect().bottom+12)</script></body></html>`;
}
