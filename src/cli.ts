import { Command, CommanderError } from 'commander';
import { ALL_COMMANDS } from './commands';
import { ConfigError, loadConfig, loadDotEnv } from './config';
import type { Runtime } from './runtime';
import { execOne, execStream } from './cli/exec';
import { errorDetails, errorText, isForPeople } from './commands/error-text';
import { commandHelpText, commandListText, suggestCommands } from './commands/help';
import { CliExit, processIo, type CliIo } from './cli/io';
import { cliLogPath, fileLog } from './cli/log-file';
import { registerPlanCommands } from './cli/plan';
import { registerWorkerCommand } from './cli/worker';

export { prepareSnapshot } from './cli/snapshot';

const DESCRIPTION =
  'Agent Queue from the command line: run any command of the catalog against the same database the Slack app uses. ' +
  'Works with zero configuration: data lives in AQ_HOME (default ~/.agent-queue) in an embedded SQLite database; ' +
  'the details of unexpected failures are in AQ_HOME/logs/aq.log.';

/** Runs the `aq` tool; resolves to the process exit code. */
export async function main(argv: string[], io: CliIo = processIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let runtime: Runtime | null = null;
  let logFile: string | null = null;
  const openRuntime = async (): Promise<Runtime> => {
    if (env === process.env) loadDotEnv();
    const config = loadConfig(env);
    logFile = cliLogPath(config.home);
    // Loaded here, not at the top: `aq help` and `aq plan` need no database.
    const { createRuntime } = await import('./runtime');
    // Details behind "Something went wrong" go to a file, never to the terminal.
    // One connection: a command's queries take turns on it, as they do on SQLite.
    runtime = await createRuntime(config, { log: fileLog(logFile), maxDatabaseConnections: 1 });
    return runtime;
  };

  const program = new Command('aq')
    .description(DESCRIPTION)
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout(s.trimEnd()), writeErr: (s) => io.stderr(s.trimEnd()) })
    .showHelpAfterError('(run `aq --help` for usage)');

  let exitCode = 0;

  program
    .command('exec')
    .description(
      'Run a command: `aq exec NAME [JSON_ARGS]` prints one JSON result line (exit 1 on an error result); `aq exec -` reads {"name","args"} lines from standard input.',
    )
    .argument('<name>', 'command name, or - to read commands from standard input')
    .argument('[json_args]', 'arguments as a JSON object')
    .action(async (name: string, jsonArgs: string | undefined) => {
      const rt = await openRuntime();
      exitCode = name === '-' ? await execStream(rt.handler, io) : await execOne(rt.handler, name, jsonArgs, io);
    });

  program
    .command('help')
    .description("List the commands, or show one command's fields.")
    .argument('[command]', 'a command name')
    .action((name: string | undefined) => {
      if (!name) {
        io.stdout(commandListText(ALL_COMMANDS));
        return;
      }
      const command = ALL_COMMANDS.find((c) => c.name === name);
      if (!command) {
        throw new CliExit(1, `Unknown command: ${name}. Did you mean: ${suggestCommands(name, ALL_COMMANDS).join(', ')}?`);
      }
      io.stdout(commandHelpText(command));
    });

  registerPlanCommands(program, io);
  registerWorkerCommand(program, io, env);

  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (err) {
    if (err instanceof CliExit) {
      if (err.message) io.stderr(err.message);
      return err.code;
    }
    if (err instanceof CommanderError) return err.exitCode;
    if (err instanceof ConfigError) {
      io.stderr(`Configuration error: ${err.message}`);
      return 1;
    }
    if (logFile && !isForPeople(err)) fileLog(logFile)(`aq failed: ${errorDetails(err)}`);
    io.stderr(`aq failed: ${errorText(err)}${logFile && !isForPeople(err) ? ` (${logFile})` : ''}`);
    return 1;
  } finally {
    const rt = runtime as Runtime | null;
    if (rt) await rt.close();
  }
}

/**
 * Runs `aq` as this process (bin/aq.js, the startup snapshot, `node dist/src/cli.js`): its exit
 * code is main's answer. Until main answers, the process has not succeeded: Node ends a process
 * whose event loop ran dry with 0, even while main still awaits a promise nothing is left to settle.
 */
export function runAsProcess(argv: string[]): void {
  process.exitCode = 1;
  main(argv).then(
    (code) => {
      process.exitCode = code;
    },
    (err: { message?: unknown } | undefined) => {
      process.stderr.write(`aq failed: ${err?.message ? String(err.message) : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}

if (require.main === module) runAsProcess(process.argv.slice(2));
