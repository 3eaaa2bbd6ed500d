import { readFileSync } from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';
import ts from 'typescript';

const root = path.resolve(__dirname, '../../..');

/** A statement's shape, not a lone keyword: "select a project" in a help text is not SQL. */
const SQL_SHAPES = [
  /\bselect\s+(distinct\s+)?(?=\*|[a-z_]\w*\(|[\w.]+\s*(,|\bas\b|\bfrom\b))[\s\S]*?\bfrom\s+[a-z_][\w.]*(\s+[a-z_]\w*)?\s*(\bwhere\b|\bjoin\b|\border\s+by\b|\bgroup\s+by\b|\blimit\b|;|\)|,|$)/i,
  /\binsert\s+(or\s+\w+\s+)?into\s+[a-z_]\w*\s*\(/i,
  /\bupdate\s+[a-z_]\w*\s+set\s+[a-z_]\w*\s*=/i,
  /\bdelete\s+from\s+[a-z_]\w*(\s+where\b|\s*$)/i,
  /\bon\s+conflict\s*\(/i,
  /\bpragma\s+[a-z_]+\s*(=|;|$)/i,
  /\b(create|drop|alter)\s+(table|index)\b/i,
  /\bfor\s+update\s+skip\s+locked\b/i,
];

/** Packages that reach the database themselves: outside src/db only their types may be imported. */
const DRIVER_PACKAGES = /^(@mikro-orm\/|knex$|pg$|pg-|sqlite3$|better-sqlite3$)/;

/** MikroORM's doors to hand-written SQL. */
const RAW_DOORS = new Set(['getConnection', 'getKnex', 'createQueryBuilder', 'qb']);

/** Where `source` (a file's text) holds or reaches raw SQL, as `line: what`. */
function rawSqlIn(fileName: string, source: string): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const at = (node: ts.Node, what: string) => found.push(`${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${what}`);
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateExpression(node)) {
      const text = ts.isTemplateExpression(node)
        ? [node.head.text, ...node.templateSpans.map((span) => span.literal.text)].join(' x ')
        : node.text;
      if (SQL_SHAPES.some((shape) => shape.test(text))) at(node, `SQL in a string: ${text.slice(0, 60).replace(/\s+/g, ' ')}`);
      if (ts.isTemplateExpression(node)) ts.forEachChild(node, visit);
      return;
    }
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && DRIVER_PACKAGES.test(node.moduleSpecifier.text)) {
      const clause = node.importClause;
      const typeOnly =
        clause?.isTypeOnly ||
        (clause?.namedBindings && ts.isNamedImports(clause.namedBindings) && !clause.name
          ? clause.namedBindings.elements.every((e) => e.isTypeOnly)
          : false);
      if (!typeOnly) at(node, `imports the database package ${node.moduleSpecifier.text}`);
      return;
    }
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && RAW_DOORS.has(node.expression.name.text)) {
      at(node, `calls ${node.expression.name.text}()`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe('raw SQL stays under src/db (DESIGN.md, Layers)', () => {
  it('no file outside src/db holds or reaches raw SQL', async () => {
    const files = await fg(['src/**/*.ts', 'listeners/**/*.ts', '!src/db/**'], { cwd: root });
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.flatMap((f) => rawSqlIn(f, readFileSync(path.join(root, f), 'utf8')).map((hit) => `${f}:${hit}`));
    expect(offenders).toEqual([]);
  });

  it.each([
    ["db.em().getConnection().execute('select session_id from task_results where task_id = ? limit 1', [id]);", 'getConnection'],
    ["em.execute('select value from system_state where key = ?', [key]);", 'select value'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
    ['em.execute(`delete from system_state where key = ? and ${json} = ?`, []);', 'delete from'],
    ["em.execute('insert into events (type, payload) values (?, ?)', []);", 'insert into'],
    ["em.execute(`update tasks set status = 'READY' where id = ?`, [id]);", 'update tasks'],
    ["const q = 'SELECT count(*) FROM tasks';", 'SELECT'],
    ["import { raw } from '@mikro-orm/core';", '@mikro-orm/core'],
    ["import knex from 'knex';", 'knex'],
    ['em.getKnex().raw(sql);', 'getKnex'],
  ])('catches %s', (source, what) => {
    const found = rawSqlIn('sample.ts', source);
    expect(found.length).toBeGreaterThan(0);
    expect(found.join('\n')).toContain(what);
  });

  it('leaves commands, prose and type-only imports alone', () => {
    const source = [
      "import type { SqlEntityManager } from '@mikro-orm/sqlite';",
      "import { type EntityManager } from '@mikro-orm/core';",
      "await handler.execute('delete_task', { task_id: id });",
      "await git.raw(['update-ref', 'refs/heads/main', sha]);",
      "const help = 'Select a project from the list, then update its name.';",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
      'const note = `Delete the task from ${where} and insert it into another project.`;',
    ].join('\n');
    expect(rawSqlIn('sample.ts', source)).toEqual([]);
  });
});
