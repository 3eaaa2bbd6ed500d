import { execFileSync } from 'node:child_process';
import path from 'node:path';

/** Builds dist/ once (incrementally) so tests can run the real `bin/aq.js`. */
export default function globalSetup(): void {
  const root = path.join(__dirname, '..', '..');
  execFileSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
}
