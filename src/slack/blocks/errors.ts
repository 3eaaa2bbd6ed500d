import { clip, context, fallbackOf, LIMITS, type Rendered } from './common';
import { md, plainSection } from './text';

/**
 * A command's error for a person, shown literally (plain_text: whatever the message quotes
 * cannot ping or link), ending with the help hint for the command when there is one.
 */
export function errorReply(message: unknown, command?: string): Rendered {
  const sentence = String(message ?? 'Something went wrong.');
  const hint = command ? md`See \`/aq help ${command}\` for its fields and an example.` : md`\`/aq help\` lists the commands.`;
  return {
    text: fallbackOf(`:warning: ${sentence}`),
    blocks: [plainSection(clip(`:warning: ${sentence}`, LIMITS.sectionText)), context(hint.text)],
  };
}
