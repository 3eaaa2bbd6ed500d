#!/usr/bin/env node
/**
 * Draws Block Kit as a PNG, approximating Slack (dev tool, no Slack needed).
 *   node scripts/render-blocks.js payload.json [out.png]   a message {text, blocks}, a view, or Surface[]
 *   node scripts/render-blocks.js --gallery [dir] [a,b]     the app's real cards with sample data (or some)
 * TypeScript is loaded through @swc/core (already a dev dependency); screenshots use headless Chromium.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const swc = require('@swc/core');

require.extensions['.ts'] = (module, filename) => {
  const { code } = swc.transformSync(fs.readFileSync(filename, 'utf8'), {
    filename,
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      target: 'es2022',
      transform: { legacyDecorator: true, decoratorMetadata: true },
    },
    module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

function chromium(args) {
  return execFileSync(CHROMIUM, ['--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars', ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
}

/** Writes `surfaces` as a PNG at `out`, as tall as the page. */
function screenshot(surfaces, out) {
  const { pageHtml } = require('../test/support/block-html.ts');
  const file = path.join(os.tmpdir(), `aq-render-${process.pid}-${path.basename(out)}.html`);
  fs.writeFileSync(file, pageHtml(surfaces));
  const url = `file://${file}`;
  const height = Number(/<title>h(\d+)<\/title>/.exec(chromium(['--window-size=660,800', '--dump-dom', url]))?.[1] ?? 1200);
  chromium([`--window-size=660,${height}`, `--screenshot=${path.resolve(out)}`, url]);
  fs.rmSync(file, { force: true });
  console.log(`${out} (${height}px)`);
}

function asSurfaces(json) {
  if (Array.isArray(json)) return json;
  if (json.kind) return [json];
  if (json.type === 'modal') return [{ kind: 'modal', view: json }];
  if (json.type === 'home') return [{ kind: 'home', view: json }];
  return [{ kind: 'message', ...json }];
}

async function main() {
  const [first, second] = process.argv.slice(2);
  if (!first) {
    console.error('usage: render-blocks.js payload.json [out.png] | --gallery [dir]');
    process.exit(2);
  }
  if (first === '--gallery') {
    const dir = second || path.join(os.tmpdir(), 'aq-gallery');
    fs.mkdirSync(dir, { recursive: true });
    const { gallery } = require('../test/support/block-gallery.ts');
    const only = process.argv[4]?.split(',');
    for (const [name, surfaces] of Object.entries(await gallery())) {
      if (!only || only.includes(name)) screenshot(surfaces, path.join(dir, `${name}.png`));
    }
    return;
  }
  screenshot(asSurfaces(JSON.parse(fs.readFileSync(first, 'utf8'))), second || `${first.replace(/\.json$/, '')}.png`);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
