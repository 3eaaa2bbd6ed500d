import type { FileHandle } from 'node:fs/promises';

export interface FirstLines {
  /** The first lines (without their line ends), as many as fit both limits. */
  lines: string[];
  /** How many lines the file has: its line ends, and a last line without one. */
  total: number;
  /** Set when a line did not fit `maxBytes`. */
  cutAtBytes: boolean;
  /** Set when that line was the first: `lines` is then its start alone. */
  cutInsideFirstLine: boolean;
}

/**
 * A file's first lines, split at \n (a \r before it is dropped), reading the file once as bytes:
 * past the lines kept only line ends are counted, so neither a long file nor one long line is
 * ever held in memory.
 */
export async function firstLines(file: FileHandle, limits: { maxLines: number; maxBytes: number }): Promise<FirstLines> {
  const lines: string[] = [];
  let current: Buffer[] = [];
  let currentBytes = 0;
  let keptBytes = 0;
  let keeping = true;
  let cutAtBytes = false;
  let cutInsideFirstLine = false;
  let total = 0;
  let lastByte = -1;

  const endLine = () => {
    if (!keeping) return;
    let line = Buffer.concat(current);
    if (line.at(-1) === 13) line = line.subarray(0, -1);
    lines.push(line.toString('utf8'));
    keptBytes += line.length + 1;
    current = [];
    currentBytes = 0;
    if (lines.length >= limits.maxLines) keeping = false;
  };
  const take = (part: Buffer) => {
    if (!keeping || part.length === 0) return;
    if (keptBytes + currentBytes + part.length <= limits.maxBytes) {
      current.push(part);
      currentBytes += part.length;
      return;
    }
    keeping = false;
    cutAtBytes = true;
    if (lines.length > 0) return;
    // One line larger than the limit: its start, at a character's boundary.
    const start = Buffer.concat([...current, part]).subarray(0, limits.maxBytes);
    lines.push(new TextDecoder().decode(start, { stream: true }));
    cutInsideFirstLine = true;
  };

  for await (const chunk of file.createReadStream({ start: 0, autoClose: false })) {
    const bytes = chunk as Buffer;
    if (bytes.length === 0) continue;
    let start = 0;
    for (let end = bytes.indexOf(10); end !== -1; end = bytes.indexOf(10, start)) {
      take(bytes.subarray(start, end));
      endLine();
      total++;
      start = end + 1;
    }
    take(bytes.subarray(start));
    lastByte = bytes[bytes.length - 1];
  }
  if (lastByte !== -1 && lastByte !== 10) {
    total++;
    endLine();
  }
  return { lines, total, cutAtBytes, cutInsideFirstLine };
}
