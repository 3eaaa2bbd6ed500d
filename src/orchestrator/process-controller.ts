import { execFile } from 'node:child_process';
import type { ProcessController } from './port';

/** The real thing: signals this process and runs programs with execFile (no shell). */
export const realProcessController: ProcessController = {
  signalSelf(signal) {
    process.kill(process.pid, signal);
  },
  run(file, args, { cwd, timeoutMs }) {
    return new Promise((resolve) => {
      execFile(file, args, { cwd, timeout: timeoutMs, maxBuffer: 10 * 1024 * 1024 }, (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr || (error && !stdout ? error.message : '')) });
      });
    });
  },
};
