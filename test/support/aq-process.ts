import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** `aq` as npm installs it (package.json bin): the shell script that picks a startup snapshot. */
export const AQ = path.join(__dirname, '..', '..', 'bin', 'aq');

/** What an `aq` run answered: its exit code and what it wrote. */
export interface AqAnswer {
  code: number;
  stdout: string;
  stderr: string;
}

export interface AqRun extends AqAnswer {
  /** Node's own options, as the process reported them at exit: which snapshot it started from. */
  execArgv: string[];
}

export interface AqRunOptions {
  /** Set besides PATH, AQ_HOME and the reporter's variables. */
  env?: Record<string, string>;
  /** Run bin/aq.js unbundled (AQ_NO_BUNDLE=1). */
  fallback?: boolean;
  stdin?: string;
  cwd?: string;
}

/** The real `aq` as its own process on AQ_HOME `home`, with only PATH and `options.env` besides. */
export async function runAq(home: string, args: string[], options: AqRunOptions = {}): Promise<AqRun> {
  const report = path.join(home, `exec-argv-${Math.random().toString(36).slice(2)}.json`);
  const reporter = path.join(home, 'report-exec-argv.js');
  await writeFile(
    reporter,
    "process.on('exit', () => require('fs').writeFileSync(process.env.REPORT_FILE, JSON.stringify(process.execArgv)));",
  );
  return new Promise((resolve, reject) => {
    const child = spawn(AQ, args, {
      env: {
        PATH: process.env.PATH,
        AQ_HOME: home,
        NODE_OPTIONS: `--require ${reporter}`,
        REPORT_FILE: report,
        ...(options.fallback && { AQ_NO_BUNDLE: '1' }),
        ...options.env,
      },
      cwd: options.cwd ?? home,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      readFile(report, 'utf8').then(
        (text) => resolve({ code: code ?? -1, stdout, stderr, execArgv: JSON.parse(text) as string[] }),
        reject,
      );
    });
    child.stdin.end(options.stdin ?? '');
  });
}

/** The file name of the startup snapshot a run started from, or null. */
export function snapshotOf(run: AqRun): string | null {
  const at = run.execArgv.indexOf('--snapshot-blob');
  return at < 0 ? null : path.basename(run.execArgv[at + 1]);
}
