import type { ChildProcess, StdioPipe } from 'node:child_process';
import type { Writable } from 'node:stream';

/** The pipe a child's descriptor 3 needs when it is to read `bytes` there (none without bytes). */
export function descriptor3Pipe(bytes: Buffer | null): StdioPipe[] {
  return bytes ? ['pipe'] : [];
}

/** Gives `child` its `bytes` on descriptor 3 (spawned with descriptor3Pipe), then the end of them. */
export function writeDescriptor3(child: ChildProcess, bytes: Buffer | null): void {
  if (!bytes) return;
  const third = child.stdio[3] as Writable;
  // A child that never reads it, or is gone, fails on its own terms, not through this stream.
  third.on('error', () => undefined);
  third.end(bytes);
}
