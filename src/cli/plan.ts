import { access } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { findPlanFile, parsePlan, PlanTooLarge, readPlanFile, type ParsedPlan } from '../plan/parser';
import { CliExit, type CliIo } from './io';
import { jsonWithDirectionEscaped } from '../util/hidden-characters';

/** The ParsedPlan in the spec's wire form (snake_case keys). */
export function planToJson(plan: ParsedPlan): Record<string, unknown> {
  return {
    source_file: plan.sourceFile,
    steps: plan.steps.map((s) => ({ title: s.title, description: s.description, priority_hint: s.priorityHint })),
    raw_content: plan.rawContent,
  };
}

function parseMaxSteps(value: string): number {
  if (!/^\d+$/.test(value.trim())) {
    throw new CliExit(2, `--max-steps must be a whole number of 0 or more (got ${JSON.stringify(value)}).`);
  }
  return Number(value);
}

export function registerPlanCommands(program: Command, io: CliIo): void {
  const plan = program.command('plan').description("Find and parse implementation plans (Markdown) the way agents' plans become tasks.");

  plan
    .command('parse')
    .description('Parse a plan file and print its steps as JSON (source_file, steps, raw_content).')
    .argument('<file>', 'Markdown plan file')
    .option('--max-steps <n>', 'keep at most this many steps', '20')
    .action(async (file: string, options: { maxSteps: string }) => {
      const maxSteps = parseMaxSteps(options.maxSteps);
      const absolute = path.resolve(file);
      try {
        await access(absolute);
      } catch {
        throw new CliExit(1, `Plan file not found: ${absolute}`);
      }
      let content: string;
      try {
        content = await readPlanFile(absolute);
      } catch (err) {
        if (err instanceof PlanTooLarge) throw new CliExit(1, `${err.message} The app skips such a plan.`);
        throw new CliExit(1, `Could not read ${absolute}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
      }
      io.stdout(jsonWithDirectionEscaped(JSON.stringify(planToJson(parsePlan(content, { sourceFile: absolute, maxSteps })), null, 2)));
    });

  plan
    .command('find')
    .description('Print the plan file an agent left in a workspace; exit 1 when there is none.')
    .argument('<dir>', 'workspace directory')
    .action(async (dir: string) => {
      const found = await findPlanFile(path.resolve(dir));
      if (!found) throw new CliExit(1);
      io.stdout(found);
    });
}
