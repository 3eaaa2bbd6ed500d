import { readFileSync } from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';
import ts from 'typescript';

const root = path.resolve(__dirname, '../../..');

/** The calls of node:fs that open a file by its path and read or write what is in it. */
const OPENING = new Set([
  'open',
  'openSync',
  'readFile',
  'readFileSync',
  'writeFile',
  'writeFileSync',
  'appendFile',
  'appendFileSync',
  'createReadStream',
  'createWriteStream',
]);

/**
 * Files that open only the app's own files (its settings, build stamp, logs, credentials and
 * caches) or the file a person named on the command line, and the helpers that open the rest.
 */
const OWN_FILES = [
  'src/agents/profiles.ts',
  'src/app-socket.ts',
  'src/cli/',
  'src/config.ts',
  'src/config-digest.ts',
  'src/git/remote-credentials.ts',
  'src/git/git-control-files.ts',
  'src/plan/parser.ts',
  'src/util/',
];

function openingImports(fileName: string, source: string): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  for (const statement of file.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    if (!/^(node:)?fs(\/promises)?$/.test(statement.moduleSpecifier.text)) continue;
    const bindings = statement.importClause?.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings)) found.push(`* as ${bindings.name.text}`);
    if (statement.importClause?.name) found.push(statement.importClause.name.text);
    if (bindings && ts.isNamedImports(bindings)) {
      for (const element of bindings.elements) {
        const name = (element.propertyName ?? element.name).text;
        if (!element.isTypeOnly && OPENING.has(name)) found.push(name);
      }
    }
  }
  return found;
}

describe("what agents can touch is opened through src/util/regular-file.ts (DESIGN.md, Rules of the house: agents' files)", () => {
  it('no other file of src opens a file by its path', async () => {
    const files = await fg('src/**/*.ts', { cwd: root });
    const offenders = files
      .filter((f) => !OWN_FILES.some((own) => f === own || (own.endsWith('/') && f.startsWith(own))))
      .flatMap((f) => openingImports(f, readFileSync(path.join(root, f), 'utf8')).map((name) => `${f}: imports ${name}`));
    expect(offenders).toEqual([]);
  });

  it('finds such an import, whichever way it is written', () => {
    expect(openingImports('a.ts', "import { readFile, stat } from 'node:fs/promises';")).toEqual(['readFile']);
    expect(openingImports('a.ts', "import { createReadStream as crs } from 'fs';")).toEqual(['createReadStream']);
    expect(openingImports('a.ts', "import fs from 'node:fs';")).toEqual(['fs']);
    expect(openingImports('a.ts', "import * as fsp from 'node:fs/promises';")).toEqual(['* as fsp']);
    expect(openingImports('a.ts', "import { stat, type FileHandle } from 'node:fs/promises';")).toEqual([]);
  });
});
