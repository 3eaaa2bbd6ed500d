#!/usr/bin/env node
// `npm test`: the type check and Biome run beside Jest instead of before it, at a lower priority,
// so they fill the moments Jest's workers wait on git, agents and databases rather than adding
// half a minute in front of every run. Their output is printed after Jest's, and any of the three
// failing fails the run. Arguments go to Jest (`npm test -- test/unit`).
const { spawn } = require('node:child_process');
const os = require('node:os');
const path = require('node:path');

const root = path.join(__dirname, '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);

/** Runs a check with its output kept, at a lower scheduling priority than Jest. */
function check(name, command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      os.setPriority(child.pid, 10);
    } catch {
      // Not permitted here: it runs at the same priority.
    }
    const output = [];
    child.stdout.on('data', (d) => output.push(d));
    child.stderr.on('data', (d) => output.push(d));
    child.on('error', (err) => resolve({ name, code: 1, output: `${name} could not start: ${err.message}\n` }));
    child.on('close', (code, signal) => resolve({ name, code: code ?? (signal ? 1 : 0), output: Buffer.concat(output).toString() }));
  });
}

function jest(args) {
  return new Promise((resolve) => {
    const child = spawn(bin('jest'), args, { cwd: root, stdio: 'inherit' });
    child.on('error', () => resolve(1));
    child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

async function main() {
  const checks = Promise.all([
    check('Type check (tsc)', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']),
    check('Biome', bin('biome'), ['check']),
  ]);
  const jestCode = await jest(process.argv.slice(2));
  let failed = jestCode !== 0;
  for (const result of await checks) {
    const text = result.output.trim();
    if (result.code !== 0) {
      failed = true;
      process.stderr.write(`\n${result.name} failed:\n${text}\n`);
    } else {
      process.stdout.write(`\n${result.name} passed.${text ? `\n${text}` : ''}\n`);
    }
  }
  process.exitCode = failed ? 1 : 0;
}

main();
