import { diffViewContent, VIEW_CONTENT_BYTES } from '../../../src/slack/rooms/room-diff';

/** A file's diff adding `lines` lines of about 40 bytes. */
function fileDiff(name: string, lines: number): string {
  const added = Array.from({ length: lines }, (_, i) => `+line ${i} of ${name}, padded to some length`).join('\n');
  return `diff --git a/${name} b/${name}\nnew file mode 100644\n--- /dev/null\n+++ b/${name}\n@@ -0,0 +1,${lines} @@\n${added}\n`;
}

describe("a task room's diff view", () => {
  it('shows a diff within Slack’s cap as git printed it', () => {
    const diff = fileDiff('a.txt', 10);
    expect(diffViewContent(diff, 't-1')).toBe(diff);
  });

  it('past the cap, keeps the whole files that fit under a note with the totals of the whole diff', () => {
    const files = ['a.txt', 'b.txt', 'c.txt'].map((name) => fileDiff(name, 10_000));
    const content = diffViewContent(files.join(''), 't-1');
    expect(Buffer.byteLength(content)).toBeLessThanOrEqual(VIEW_CONTENT_BYTES);
    expect(content).toMatch(/^Agent Queue: this diff is larger than Slack shows \(1 MB\)/);
    expect(content).toContain('The whole diff: 3 files changed, 30000 insertions(+), 0 deletions(-).');
    expect(content).toContain('Run /aq get_task_diff task_id=t-1 for all of it.');
    expect(content.endsWith(files[1])).toBe(true);
    expect(content).not.toContain('c.txt');
  });

  it('takes the totals it is given when the diff itself is only the start of one', () => {
    const whole = { files: [{ path: 'a.txt', added: 90_000, removed: 2 }], insertions: 90_000, deletions: 2 };
    const content = diffViewContent(fileDiff('a.txt', 30_000), 't-2', whole);
    expect(content).toContain('The whole diff: 1 file changed, 90000 insertions(+), 2 deletions(-).');
    // One file larger than the cap: its first whole lines.
    expect(Buffer.byteLength(content)).toBeLessThanOrEqual(VIEW_CONTENT_BYTES);
    expect(content.endsWith(', padded to some length\n')).toBe(true);
  });
});
