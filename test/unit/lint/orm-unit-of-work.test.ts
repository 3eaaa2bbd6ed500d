import { readFileSync } from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';
import ts from 'typescript';

const root = path.resolve(__dirname, '../../..');

/**
 * MikroORM's entity methods: finding, hydrating and tracking entities, and writing them back at a
 * flush. Every repository method is a plain statement instead (DESIGN.md, "Where each kind of
 * change goes"): the ORM's `find` cost about 1 ms of JavaScript a call, its `nativeUpdate` 2 ms.
 */
const ENTITY_METHODS = new Set([
  'assign',
  'count',
  'create',
  'find',
  'findAll',
  'findAndCount',
  'findByCursor',
  'findOne',
  'findOneOrFail',
  'flush',
  'getReference',
  'insert',
  'insertMany',
  'merge',
  'nativeDelete',
  'nativeInsert',
  'nativeUpdate',
  'persist',
  'persistAndFlush',
  'populate',
  'refresh',
  'remove',
  'removeAndFlush',
  'upsert',
  'upsertMany',
]);

/** An EntityManager as the code names one: `em`, `tx`, `this.em()`, `db.em()`, `this.db.em()`. */
const ENTITY_MANAGER = /^(em|tx|(this\.)?(db\.)?em\(\)|[\w.]+\.em\(\))$/;

/** Where `source` calls an entity method on an EntityManager, as `line: what`. */
function entityCallsIn(fileName: string, source: string): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const receiver = node.expression.expression.getText(file).replace(/\s+/g, '');
      const method = node.expression.name.text;
      if (ENTITY_METHODS.has(method) && ENTITY_MANAGER.test(receiver)) {
        found.push(`${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${receiver}.${method}()`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe("no code goes through the ORM's entities (DESIGN.md)", () => {
  it('no file calls an EntityManager entity method', async () => {
    const files = await fg(['src/**/*.ts', 'listeners/**/*.ts', '!src/db/migrations/**'], { cwd: root });
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.flatMap((f) => entityCallsIn(f, readFileSync(path.join(root, f), 'utf8')).map((hit) => `${f}:${hit}`));
    expect(offenders).toEqual([]);
  });

  it.each([
    ['const project = em.create(Project, { id });', 'em.create()'],
    ['await em.flush();', 'em.flush()'],
    ['await this.em().findOne(Project, { id });', 'this.em().findOne()'],
    ['await tx.nativeDelete(Project, { id });', 'tx.nativeDelete()'],
    ['await this.db.em().count(Task, {});', 'this.db.em().count()'],
    ['await ctx.db.em().persistAndFlush(task);', 'ctx.db.em().persistAndFlush()'],
  ])('catches %s', (source, what) => {
    expect(entityCallsIn('sample.ts', source)).toEqual([`1: ${what}`]);
  });

  it.each([
    'await progress.flush();',
    'await ctx.db.tasks.count();',
    "await em.execute('select 1', []);",
    'const hooks = await this.hooks.find(id);',
  ])('leaves %s alone', (source) => {
    expect(entityCallsIn('sample.ts', source)).toEqual([]);
  });
});
