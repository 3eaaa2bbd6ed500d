import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { ReadTextFileRequest, ReadTextFileResponse, WriteTextFileRequest } from '@agentclientprotocol/sdk';
import { fileToolRefusal, outsideRefusal, type Refusal } from './confinement';
import { makeFolders, openedPath, openRegularFile, openRegularFileToWrite } from '../util/regular-file';

/** The most text one `fs/read_text_file` answers with; an agent reads a larger file in parts. */
export const READ_MAX_BYTES = 10 * 1024 * 1024;

class LineTooLong extends Error {
  constructor(readonly line: number) {
    super(`line ${line} is longer than one read returns`);
  }
}

/** A file's lines with their numbers (from 1), split on \n only, as `text.split('\n')` would. */
async function* numberedLines(handle: FileHandle): AsyncGenerator<[number, string]> {
  let number = 0;
  let rest = '';
  for await (const chunk of handle.createReadStream({ encoding: 'utf8', autoClose: false })) {
    const text = chunk as string;
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      yield [++number, rest + text.slice(start, end)];
      rest = '';
      start = end + 1;
    }
    rest += text.slice(start);
    if (rest.length > READ_MAX_BYTES) throw new LineTooLong(number + 1);
  }
  yield [++number, rest];
}

/**
 * The ACP client's file methods (`fs/read_text_file`, `fs/write_text_file`), which an agent
 * uses instead of touching files itself: they run in the app's process, outside any sandbox, so
 * each goes through the path guard first.
 */
export class GuardedFiles {
  private readonly realRoots: Promise<string[]>;
  writes = 0;

  constructor(
    private readonly roots: string[],
    realRoots: Promise<string[]>,
    private readonly onRefused: (refusal: Refusal) => void,
  ) {
    this.realRoots = realRoots;
  }

  /** Null when the path may be used, else why not (the agent is told, and the run records it). */
  async refusal(tool: string, target: string): Promise<string | null> {
    const refused = path.isAbsolute(target)
      ? await fileToolRefusal(target, this.roots, await this.realRoots, tool === 'Write')
      : outsideRefusal(target, this.roots);
    if (!refused) return null;
    this.onRefused({ tool, path: target, ...refused });
    return refused.reason;
  }

  /**
   * The check again, on the file actually opened: a folder of the path swapped for a link after
   * `refusal` looked (the agent runs beside this) would otherwise lead the read or write out of
   * the workspace, to the app's own files. Nothing is read or written before it answers.
   */
  private async openedRefusal(tool: string, requested: string, handle: FileHandle): Promise<string | null> {
    const opened = await openedPath(handle);
    return opened === null ? null : this.refusalAt(tool, requested, opened);
  }

  /** Why the file whose real path is `real` may not be opened or made: null when it may (the refusal recorded). */
  private async refusalAt(tool: string, requested: string, real: string): Promise<string | null> {
    const refused = await fileToolRefusal(real, this.roots, await this.realRoots, tool === 'Write');
    if (!refused) return null;
    this.onRefused({ tool, path: requested, ...refused });
    return refused.reason;
  }

  async read(params: ReadTextFileRequest): Promise<ReadTextFileResponse | { refused: string }> {
    const refused = await this.refusal('Read', params.path);
    if (refused) return { refused };
    const handle = await openRegularFile(params.path);
    if (!handle) return { refused: notRegular(params.path) };
    try {
      const opened = await this.openedRefusal('Read', params.path, handle);
      if (opened) return { refused: opened };
      return await readText(handle, (await handle.stat()).size, params);
    } finally {
      await handle.close();
    }
  }

  async write(params: WriteTextFileRequest): Promise<{ refused: string } | null> {
    const refused = await this.refusal('Write', params.path);
    if (refused) return { refused };
    const mayMake = (real: string) => this.refusalAt('Write', params.path, real);
    const folderRefused = await makeFolders(path.dirname(params.path), mayMake);
    if (folderRefused) return { refused: folderRefused };
    const opened = await openRegularFileToWrite(params.path, mayMake);
    if ('notRegular' in opened) return { refused: notRegular(params.path) };
    if ('refused' in opened) return { refused: opened.refused };
    const { handle } = opened;
    try {
      const opened = await this.openedRefusal('Write', params.path, handle);
      if (opened) return { refused: opened };
      await handle.truncate(0);
      await handle.writeFile(params.content);
    } finally {
      await handle.close();
    }
    this.writes += 1;
    return null;
  }
}

function notRegular(file: string): string {
  return `${file} is not a regular file, so it has no text to read or write.`;
}

async function readText(
  handle: FileHandle,
  size: number,
  params: ReadTextFileRequest,
): Promise<ReadTextFileResponse | { refused: string }> {
  const tooLarge = `more than one read returns (${READ_MAX_BYTES / 1024 / 1024} MB)`;
  if (!params.line && !params.limit) {
    if (size > READ_MAX_BYTES) {
      return { refused: `${params.path} is ${(size / 1024 / 1024).toFixed(1)} MB, ${tooLarge}: read it in parts with line and limit.` };
    }
    return { content: await handle.readFile('utf8') };
  }
  // Lines are read as the file streams by, up to the last one asked for: the file may be far larger.
  const first = Math.max(1, params.line ?? 1);
  const last = params.limit ? first + params.limit - 1 : Number.POSITIVE_INFINITY;
  const kept: string[] = [];
  let bytes = 0;
  try {
    for await (const [number, line] of numberedLines(handle)) {
      if (number < first) continue;
      bytes += Buffer.byteLength(line) + 1;
      if (bytes > READ_MAX_BYTES) return { refused: `Lines ${first} on of ${params.path} are ${tooLarge}: ask for fewer with limit.` };
      kept.push(line);
      if (number === last) break;
    }
  } catch (err) {
    if (err instanceof LineTooLong) return { refused: `Line ${err.line} of ${params.path} is ${tooLarge}.` };
    throw err;
  }
  return { content: kept.join('\n') };
}
