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
