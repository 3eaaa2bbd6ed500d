import type { ChatProvider, ChatToolDefinition } from '../model/provider';
import { DEFAULT_MAX_STEPS, parsePlan, type ParsedPlan, type ParsePlanOptions, type PlanStep } from './parser';
import { pyStrip } from './python-text';

export const PLAN_PARSER_SYSTEM_PROMPT = [
  'You are a plan parser. You receive a Markdown implementation plan written by a coding agent.',
  'Extract only the actionable, concrete coding steps, in the order the plan gives them.',
  'Skip overviews, summaries, background, conclusions, dependency graphs and inventories of files: they are not steps.',
  'Write each title as a short imperative action (for example "Add the login endpoint").',
  'Put all the implementation detail of a step into its description, so it can be worked on its own.',
  'Return the steps by calling the extract_plan_steps tool.',
].join('\n');

export const EXTRACT_PLAN_STEPS_TOOL: ChatToolDefinition = {
  name: 'extract_plan_steps',
  description: 'Extract the actionable implementation steps from a plan.',
  inputSchema: {
    type: 'object',
    properties: {
      steps: {
        type: 'array',
        description: 'Ordered list of actionable steps',
        items: {
          type: 'object',
          properties: {
            title: { type: 'string', description: 'Short imperative title' },
            description: { type: 'string', description: 'Full implementation details' },
          },
          required: ['title', 'description'],
        },
      },
    },
    required: ['steps'],
  },
};

export const PLAN_PARSER_MAX_TOKENS = 4096;

function asText(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/**
 * Asks the model for the plan's steps through the `extract_plan_steps` tool. Falls back to the
 * rule-based parser when the answer holds no such tool call; provider errors propagate, so the
 * caller decides (the orchestrator falls back to parsePlan).
 */
export async function parsePlanWithLlm(rawContent: string, provider: ChatProvider, options: ParsePlanOptions = {}): Promise<ParsedPlan> {
  const sourceFile = options.sourceFile ?? '';
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
  const response = await provider.createMessage({
    system: PLAN_PARSER_SYSTEM_PROMPT,
    messages: [{ role: 'user', content: rawContent }],
    tools: [EXTRACT_PLAN_STEPS_TOOL],
    maxTokens: PLAN_PARSER_MAX_TOKENS,
  });
  const call = response.toolUses.find((use) => use.name === EXTRACT_PLAN_STEPS_TOOL.name);
  if (!call) return parsePlan(rawContent, { sourceFile, maxSteps });

  const input = (call.input ?? {}) as { steps?: unknown };
  const listed = Array.isArray(input.steps) ? input.steps.slice(0, maxSteps) : [];
  const steps: PlanStep[] = [];
  listed.forEach((raw, index) => {
    const item = (raw ?? {}) as Record<string, unknown>;
    const title = pyStrip(asText(item.title));
    const description = pyStrip(asText(item.description));
    if (title && description) steps.push({ title, description, priorityHint: index });
  });
  return { sourceFile, steps, rawContent };
}
