import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ReadTextFileRequest, ReadTextFileResponse, WriteTextFileRequest } from '@agentclientprotocol/sdk';
import { fileToolRefusal, outsideRefusal, type Refusal } from './confinement';

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

  async read(params: ReadTextFileRequest): Promise<ReadTextFileResponse | { refused: string }> {
    const refused = await this.refusal('Read', params.path);
    if (refused) return { refused };
    const content = await readFile(params.path, 'utf8');
    if (!params.line && !params.limit) return { content };
    const lines = content.split('\n');
    const start = Math.max(0, (params.line ?? 1) - 1);
    return { content: lines.slice(start, params.limit ? start + params.limit : undefined).join('\n') };
  }

  async write(params: WriteTextFileRequest): Promise<{ refused: string } | null> {
    const refused = await this.refusal('Write', params.path);
    if (refused) return { refused };
    await mkdir(path.dirname(params.path), { recursive: true });
    await writeFile(params.path, params.content);
    this.writes += 1;
    return null;
  }
}
