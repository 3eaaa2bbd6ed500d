import { assertValidBranchName } from '../branch-names';
import { GitError } from '../git-errors';
import type { PullRequestInput } from '../pull-requests';
import { firstLine, runCli, saysNotLoggedIn } from './cli';
import type { ForgeCliOptions, ForgeReadiness } from './forge';

/**
 * What gh and glab have in common: the "installed and logged in" check, and a call that turns
 * a missing program, a lost login, a timeout or a refusal into one sentence for people.
 */
export abstract class CliForge {
  abstract readonly cli: string;
  abstract readonly noun: string;
  /** The product name, for messages ("GitHub CLI"). */
  protected abstract readonly product: string;

  constructor(protected readonly options: ForgeCliOptions) {}

  protected notInstalled(): string {
    return `The ${this.product} (${this.cli}) is not installed; install it and run \`${this.cli} auth login\` to open ${this.noun}s.`;
  }

  protected notLoggedIn(): string {
    return `The ${this.product} (${this.cli}) is not logged in; run \`${this.cli} auth login\` on the machine running Agent Queue.`;
  }

  /** For get_status: a short timeout, since `auth status` may ask the forge over the network. */
  async readiness(cwd: string): Promise<ForgeReadiness> {
    const auth = await runCli(this.options.path, ['auth', 'status'], cwd, Math.min(this.options.timeoutMs, 10_000), this.options.env);
    if (auth.missing) return 'missing';
    return auth.code === 0 && !auth.timedOut ? 'ready' : 'unauthenticated';
  }

  async assertReady(cwd: string): Promise<void> {
    const auth = await runCli(this.options.path, ['auth', 'status'], cwd, this.options.timeoutMs, this.options.env);
    if (auth.missing) throw new GitError(this.notInstalled());
    if (auth.timedOut) throw new GitError(`The ${this.product} (${this.cli}) did not answer \`${this.cli} auth status\` in time.`);
    if (auth.code !== 0) throw new GitError(this.notLoggedIn());
  }

  /**
   * Opens a pull or merge request with the CLI's `create` arguments, once the branches, the title
   * and the login are checked, and returns the URL it printed.
   */
  protected async openWith(cwd: string, input: PullRequestInput, createArgs: string[]): Promise<string> {
    assertValidBranchName(input.branch);
    assertValidBranchName(input.base);
    if (!input.title.trim()) throw new GitError(`A ${this.noun} needs a title.`);
    await this.assertReady(cwd);
    const out = await this.call(cwd, createArgs, `open the ${this.noun}`);
    const urls = out.match(/https?:\/\/[^\s'"<>]+/g);
    if (!urls) throw new GitError(`${this.cli} did not print the ${this.noun} URL.`);
    return urls[urls.length - 1];
  }

  /** Runs the CLI and returns stdout; `doing` completes "Could not …" and "timed out …". */
  protected async call(cwd: string, args: string[], doing: string): Promise<string> {
    const out = await runCli(this.options.path, args, cwd, this.options.timeoutMs, this.options.env);
    if (out.missing) throw new GitError(this.notInstalled());
    if (out.timedOut) throw new GitError(`The ${this.product} (${this.cli}) timed out trying to ${doing}.`);
    if (out.code !== 0) {
      const text = out.stderr || out.stdout;
      if (saysNotLoggedIn(text)) throw new GitError(this.notLoggedIn());
      throw new GitError(`Could not ${doing}: ${firstLine(text)}`);
    }
    return out.stdout;
  }

  /** Parses the CLI's JSON answer; anything else is a sentence, not a SyntaxError. */
  protected parseJson<T>(text: string, what: string): T {
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new GitError(`The ${this.product} (${this.cli}) gave an answer about the ${what} that could not be read.`);
    }
  }
}
