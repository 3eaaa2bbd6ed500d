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

const DIRECTION_OVERRIDES = /[\u202A-\u202E\u2066-\u2069]/g;

/**
 * `text` without its right-to-left and left-to-right overrides, embeddings and isolates, shown in
 * the order it was written. Their effect runs to the end of the paragraph, past the text they came
 * in: a title holding an override reversed the words after it on the same line ("(web) — ready",
 * who approved), also where the title was only part of a longer string. Removing them never
 * lengthens the text, so a cut made before or after stays within its limit. Directional marks
 * (U+200E, U+200F), which right-to-left writing uses and which reorder nothing past their
 * neighbours, are kept.
 */
export function withoutDirectionOverrides(text: string): string {
  return text.replace(DIRECTION_OVERRIDES, '');
}

/** The characters that reorder text on a terminal: directional marks, embeddings, overrides and isolates. */
const DIRECTION_CHARACTERS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/**
 * JSON text with every direction character written as a `\uXXXX` escape: the same JSON to a
 * program, while a person reading it on a terminal sees the character named instead of text it
 * reversed (a title holding U+202E turned the rest of the line around, quotes and keys included).
 * Outside strings JSON holds no such character, so only string contents change.
 */
export function jsonWithDirectionEscaped(json: string): string {
  return json.replace(DIRECTION_CHARACTERS, (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`);
}
