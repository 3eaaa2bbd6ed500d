import { assertSafePathSegment, generateTaskId, nameToId, randomTaskId, repoNameToId } from '../../../src/db/ids';

describe('ids', () => {
  it('derives project, agent and hook ids from names, and repo ids by lowercasing', () => {
    expect(nameToId('My Cool Project')).toBe('my-cool-project');
    expect(nameToId('  Spaced   Out ')).toBe('spaced-out');
    expect(repoNameToId('Agent-Queue')).toBe('agent-queue');
  });

  it('refuses ids that could walk out of a folder', () => {
    for (const bad of ['..', '.', '../x', 'a/b', 'a\\b', '.hidden', '']) {
      expect(() => assertSafePathSegment(bad, 'Project id')).toThrow(/cannot be used as a folder name/);
    }
    expect(() => assertSafePathSegment('fine-name_1', 'Project id')).not.toThrow();
  });

  it('makes readable task ids like swift-fox-042', () => {
    expect(randomTaskId()).toMatch(/^[a-z]+-[a-z]+-\d{3}$/);
    expect(randomTaskId(5)).toMatch(/^[a-z]+-[a-z]+-\d{5}$/);
  });

  it('never returns an id that is taken, growing the suffix when collisions persist', async () => {
    const taken = new Set<string>();
    let asked = 0;
    const id = await generateTaskId(async (candidate) => {
      asked++;
      if (asked <= 10) {
        taken.add(candidate);
        return true;
      }
      return taken.has(candidate);
    });
    expect(taken.has(id)).toBe(false);
    expect(id).toMatch(/^[a-z]+-[a-z]+-\d{5}$/);
    await expect(generateTaskId(async () => true)).rejects.toThrow('Could not find a free task id');
  });
});
