import { spawnSync } from 'node:child_process';
import { mkdir, readdir, readFile, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { GuardedFiles, READ_MAX_BYTES } from '../../../src/agents/acp-files';
import { makeTempDir } from '../../support/tmp';

describe("an ACP agent's file reads (fs/read_text_file)", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let files: GuardedFiles;
  const refusals: unknown[] = [];
  const read = (file: string, more: { line?: number; limit?: number } = {}) =>
    files.read({ sessionId: 's', path: path.join(dir, file), ...more });

  beforeAll(async () => {
    ({ dir, cleanup } = await makeTempDir('aq-acp-reads-'));
    files = new GuardedFiles([dir], Promise.resolve([await realpath(dir)]), (refusal) => refusals.push(refusal));
    await writeFile(path.join(dir, 'small.txt'), 'one\r\ntwo\r\nthree\r\nfour\n');
    // 12.5 MB of numbered lines, and one line longer than a read returns.
    const lines = Array.from({ length: 250_000 }, (_, i) => `line ${i + 1} ${'.'.repeat(40)}`);
    await writeFile(path.join(dir, 'large.txt'), `${lines.join('\n')}\n`);
    await writeFile(path.join(dir, 'one-line.txt'), `start\n${'x'.repeat(2 * READ_MAX_BYTES)}\nend\n`);
  });
  afterAll(() => cleanup());

  it('answers a whole file, or the lines asked for, as the text splits on \\n', async () => {
    expect(await read('small.txt')).toEqual({ content: 'one\r\ntwo\r\nthree\r\nfour\n' });
    expect(await read('small.txt', { line: 2, limit: 2 })).toEqual({ content: 'two\r\nthree\r' });
    expect(await read('small.txt', { line: 4 })).toEqual({ content: 'four\n' });
    expect(await read('small.txt', { limit: 1 })).toEqual({ content: 'one\r' });
  });

  it('refuses a whole file larger than one read returns, and answers its lines in parts', async () => {
    const refused = (await read('large.txt')) as { refused: string };
    expect(refused.refused).toBe(
      `${path.join(dir, 'large.txt')} is 12.5 MB, more than one read returns (10 MB): read it in parts with line and limit.`,
    );
    expect(await read('large.txt', { line: 200_000, limit: 2 })).toEqual({
      content: `line 200000 ${'.'.repeat(40)}\nline 200001 ${'.'.repeat(40)}`,
    });
    expect(((await read('large.txt', { line: 10 })) as { refused: string }).refused).toBe(
      `Lines 10 on of ${path.join(dir, 'large.txt')} are more than one read returns (10 MB): ask for fewer with limit.`,
    );
    expect(((await read('one-line.txt', { line: 3 })) as { refused: string }).refused).toBe(
      `Line 2 of ${path.join(dir, 'one-line.txt')} is more than one read returns (10 MB).`,
    );
    expect(await read('one-line.txt', { limit: 1 })).toEqual({ content: 'start' });
  });

  it('refuses a folder or a pipe, which has no text (a pipe would hold the read or the write)', async () => {
    expect(spawnSync('mkfifo', [path.join(dir, 'pipe')]).status).toBe(0);
    expect(await read('pipe')).toEqual({ refused: `${path.join(dir, 'pipe')} is not a regular file, so it has no text to read or write.` });
    expect(await read('pipe', { line: 1, limit: 1 })).toEqual({
      refused: `${path.join(dir, 'pipe')} is not a regular file, so it has no text to read or write.`,
    });
    expect(await read('.')).toEqual({ refused: `${dir} is not a regular file, so it has no text to read or write.` });
    // Writing: a pipe with no reader is refused at once; a file is replaced whole.
    expect(await files.write({ sessionId: 's', path: path.join(dir, 'pipe'), content: 'x' })).toEqual({
      refused: `${path.join(dir, 'pipe')} is not a regular file, so it has no text to read or write.`,
    });
    expect(await files.write({ sessionId: 's', path: path.join(dir, 'small.txt'), content: 'short' })).toBeNull();
    expect(await read('small.txt')).toEqual({ content: 'short' });
    expect(await files.write({ sessionId: 's', path: path.join(dir, 'new', 'made.txt'), content: 'made' })).toBeNull();
    expect(await read('new/made.txt')).toEqual({ content: 'made' });
  });

  it('checks again what it opened, so a folder swapped for a link out after the check leads nowhere', async () => {
    const { dir: outside, cleanup: cleanupOutside } = await makeTempDir('aq-acp-outside-');
    try {
      await writeFile(path.join(outside, 'notes.txt'), 'the app secret');
      await mkdir(path.join(dir, 'swapped'));
      await writeFile(path.join(dir, 'swapped', 'notes.txt'), 'the agent notes');
      /** The agent's move, made between the path check and the open (it runs beside the app). */
      class Racing extends GuardedFiles {
        override async refusal(tool: string, target: string): Promise<string | null> {
          const answer = await super.refusal(tool, target);
          await rename(path.join(dir, 'swapped'), path.join(dir, `swapped-${tool}`));
          await symlink(outside, path.join(dir, 'swapped'));
          return answer;
        }
      }
      const recorded: unknown[] = [];
      const racing = new Racing([dir], Promise.resolve([await realpath(dir)]), (refusal) => recorded.push(refusal));
      const target = path.join(dir, 'swapped', 'notes.txt');
      const read = (await racing.read({ sessionId: 's', path: target })) as { refused?: string; content?: string };
      expect(read.content).toBeUndefined();
      expect(read.refused).toMatch(/outside this task's workspace/);
      await rm(path.join(dir, 'swapped'));
      await rename(path.join(dir, 'swapped-Read'), path.join(dir, 'swapped'));
      expect(await racing.write({ sessionId: 's', path: target, content: 'overwritten' })).toEqual({
        refused: expect.stringMatching(/outside this task's workspace/),
      });
      expect(await readFile(path.join(outside, 'notes.txt'), 'utf8')).toBe('the app secret');
      // A file the write would make: nothing is made outside, not even an empty file.
      await rm(path.join(dir, 'swapped'));
      await rename(path.join(dir, 'swapped-Write'), path.join(dir, 'swapped'));
      const made = path.join(dir, 'swapped', 'made.txt');
      expect(await racing.write({ sessionId: 's', path: made, content: 'made' })).toEqual({
        refused: expect.stringMatching(/outside this task's workspace/),
      });
      expect(await readdir(outside)).toEqual(['notes.txt']);
      // Nor the folders a write would make on the way to its file.
      await rm(path.join(dir, 'swapped'));
      await rename(path.join(dir, 'swapped-Write'), path.join(dir, 'swapped'));
      const deeper = path.join(dir, 'swapped', 'deeper', 'still', 'made.txt');
      expect(await racing.write({ sessionId: 's', path: deeper, content: 'made' })).toEqual({
        refused: expect.stringMatching(/outside this task's workspace/),
      });
      expect(await readdir(outside)).toEqual(['notes.txt']);
      expect(recorded).toEqual([
        expect.objectContaining({ tool: 'Read', path: target }),
        expect.objectContaining({ tool: 'Write', path: target }),
        expect.objectContaining({ tool: 'Write', path: made }),
        expect.objectContaining({ tool: 'Write', path: deeper }),
      ]);
    } finally {
      await cleanupOutside();
    }
  });

  it('writes through a link to a file not made yet where it leads inside, and makes nothing where it leads outside', async () => {
    const { dir: outside, cleanup: cleanupOutside } = await makeTempDir('aq-acp-outside-');
    try {
      await symlink('later/settings.json', path.join(dir, 'settings.json'));
      await mkdir(path.join(dir, 'later'));
      expect(await files.write({ sessionId: 's', path: path.join(dir, 'settings.json'), content: '{}' })).toBeNull();
      expect(await readFile(path.join(dir, 'later', 'settings.json'), 'utf8')).toBe('{}');
      await symlink(path.join(outside, 'planted.txt'), path.join(dir, 'planted.txt'));
      expect(await files.write({ sessionId: 's', path: path.join(dir, 'planted.txt'), content: 'x' })).toEqual({
        refused: expect.stringMatching(/outside/),
      });
      expect(await readdir(outside)).toEqual([]);
    } finally {
      await cleanupOutside();
      refusals.length = 0;
    }
  });

  it('refuses a file outside its folders, and records it', async () => {
    const outside = (await files.read({ sessionId: 's', path: path.join(path.dirname(dir), 'elsewhere.txt') })) as { refused: string };
    expect(outside.refused).toMatch(/outside/);
    expect(refusals).toEqual([expect.objectContaining({ tool: 'Read' })]);
  });
});
