/**
 * Characters that change how text reads without showing themselves: Unicode's format characters
 * (category Cf), among them the right-to-left and left-to-right overrides, embeddings and isolates,
 * zero-width spaces and joiners, the soft hyphen and the byte-order mark. In an id they let two ids
 * that look the same differ, or make one read as another (an override turns `fed-cba` into what
 * looks like `abc-def`).
 *
 * Emoji sequences keep theirs: a family or a profession is joined by zero-width joiners, and a
 * subdivision flag is spelled with tag characters.
 */
const FORMAT_CHARACTER = /\p{Cf}/u;
/** A flag spelled with tags (🏴, tags, cancel tag), or an emoji joined to others by zero-width joiners. */
const EMOJI_SEQUENCE =
  /\u{1F3F4}[\u{E0020}-\u{E007E}]+\u{E007F}|\p{Extended_Pictographic}[\u{1F3FB}-\u{1F3FF}\uFE0F]?(?:\u200D\p{Extended_Pictographic}[\u{1F3FB}-\u{1F3FF}\uFE0F]?)*/gu;

/** The code point of the first hidden character in `text` outside emoji sequences, or null. */
export function firstHiddenCharacter(text: string): number | null {
  if (!FORMAT_CHARACTER.test(text)) return null;
  const found = FORMAT_CHARACTER.exec(text.replace(EMOJI_SEQUENCE, ''));
  return found ? (found[0].codePointAt(0) ?? null) : null;
}

/** `U+202E`, as people look a character up. */
export function codePointName(code: number): string {
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}
