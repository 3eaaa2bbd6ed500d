import type { KnownBlock } from '@slack/types';
import { codeBlocks, LIMITS } from './common';
import { md, plainContext, preformatted } from './text';

/** A file to upload next to a message: content too long to show in full. */
export interface FileUpload {
  filename: string;
  title: string;
  content: string;
}

/** Code blocks shown in a message before the content goes to a file instead. */
export const INLINE_CODE_BLOCKS = 4;
/** Lines of a long text previewed in the message when the whole of it is attached. */
const PREVIEW_LINES = 30;

function plural(n: number, word: string): string {
  return `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;
}

/**
 * Long literal text (a diff, a log, a file): in full as code blocks when it fits a few blocks,
 * else its first lines with a note, and the whole of it as a file to upload.
 */
export function longCode(label: string, text: string, filename: string): { blocks: KnownBlock[]; file?: FileUpload } {
  const blocks = codeBlocks(text);
  if (blocks.length <= INLINE_CODE_BLOCKS) return { blocks };
  const lines = text.split('\n');
  const preview = lines.slice(0, PREVIEW_LINES).join('\n').slice(0, LIMITS.richText);
  const shownLines = preview.split('\n').length;
  return {
    blocks: [
      preformatted(preview),
      plainContext(
        `Showing the first ${plural(shownLines, 'line')} of ${plural(lines.length, 'line')} (${plural(text.length, 'character')}). The whole ${label} is attached as ${filename}.`,
      ),
    ],
    file: { filename, title: `${label} (${plural(lines.length, 'line')})`, content: text },
  };
}

/**
 * Blocks within a message's limit. When there are more, the first ones are kept with a note and
 * `whole` (the full content as text) is attached as a file, so nothing is lost.
 */
export function fitBlocks(
  blocks: KnownBlock[],
  whole: () => string,
  filename: string,
  limit: number = LIMITS.blocksPerMessage,
): { blocks: KnownBlock[]; file?: FileUpload } {
  if (blocks.length <= limit) return { blocks };
  const kept = blocks.slice(0, limit - 1);
  const note = {
    type: 'context',
    elements: [
      {
        type: 'mrkdwn',
        text: md`${blocks.length - kept.length} more blocks did not fit in one message: everything is in the attached file ${filename}.`
          .text,
      },
    ],
  } as KnownBlock;
  return { blocks: [...kept, note], file: { filename, title: filename, content: whole() } };
}
