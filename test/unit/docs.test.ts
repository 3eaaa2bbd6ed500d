import { readFileSync } from 'node:fs';
import path from 'node:path';
import { EVENT_TYPES } from '../../src/orchestrator/events';

const root = path.join(__dirname, '..', '..');

describe('documentation stays in step with the code', () => {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');

  it('README lists every event name hooks can subscribe to', () => {
    expect(EVENT_TYPES.filter((name) => !readme.includes(`\`${name}\``))).toEqual([]);
  });

  it('README and .env.sample document every environment variable the config reads', () => {
    const config = readFileSync(path.join(root, 'src', 'config.ts'), 'utf8');
    const sample = readFileSync(path.join(root, '.env.sample'), 'utf8');
    const names = [...new Set([...config.matchAll(/\(env, '([A-Z_]+)'/g)].map((m) => m[1]))];
    expect(names.length).toBeGreaterThan(10);
    expect(names.filter((n) => !readme.includes(`\`${n}\``))).toEqual([]);
    expect(names.filter((n) => !sample.includes(n))).toEqual([]);
  });

  it("README's links to its own sections lead to a heading", () => {
    // GitHub's anchors: lower case, punctuation dropped, spaces to hyphens.
    const slug = (heading: string) =>
      heading
        .toLowerCase()
        .replace(/[^a-z0-9 _-]/g, '')
        .replace(/ /g, '-');
    const anchors = new Set([...readme.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1])));
    const links = [...readme.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]);
    expect(links.length).toBeGreaterThan(3);
    expect(links.filter((link) => !anchors.has(link))).toEqual([]);
  });
});

describe('DESIGN.md stays in step with the layer rule', () => {
  const design = readFileSync(path.join(root, 'DESIGN.md'), 'utf8');
  const biome = JSON.parse(readFileSync(path.join(root, 'biome.json'), 'utf8')) as {
    overrides: Array<{
      includes: string[];
      linter?: { rules?: { style?: { noRestrictedImports?: { options: { patterns: Array<{ group: string[]; message: string }> } } } } };
    }>;
  };
  /** biome.json's rules as folder → the folders it must not import from, e.g. `src/db/` → [listeners, …]. */
  const rules = new Map(
    biome.overrides.flatMap((override) => {
      const patterns = override.linter?.rules?.style?.noRestrictedImports?.options.patterns;
      if (!patterns) return [];
      const folder = override.includes[0].replace(/\*\*$/, '');
      const banned = patterns[0].group.filter((g) => !g.startsWith('!')).map((g) => g.replace(/^\*\*\//, '').replace(/\/\*\*$/, ''));
      return [[folder, { banned: [...new Set(banned)].sort(), message: patterns[0].message }]];
    }),
  );
  /** DESIGN.md's Layers table, read the same way. */
  const documented = new Map([...design.matchAll(/^\| `([a-z/]+)` \| ([a-z, ]+) \|$/gm)].map((m) => [m[1], m[2].split(', ').sort()]));

  it('has a Layers section for the lint messages to point to', () => {
    expect(design).toMatch(/^## Layers$/m);
    expect(rules.size).toBeGreaterThan(10);
    for (const { message } of rules.values()) expect(message).toContain('(DESIGN.md, Layers)');
  });

  it('names, for every folder, exactly the folders biome.json forbids it to import', () => {
    expect([...documented.keys()].sort()).toEqual([...rules.keys()].sort());
    for (const [folder, { banned }] of rules) expect({ folder, banned: documented.get(folder) }).toEqual({ folder, banned });
  });
});
