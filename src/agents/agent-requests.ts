import { cutWhole } from '../util/whole-characters';

/**
 * What a running agent may ask people, and the project's tool policy it runs under. The
 * orchestrator implements this over the database (src/orchestrator/agent-requests.ts), so an
 * answer may come from any process; the adapter only knows this interface.
 */

/** One question of an AskUserQuestion call, as the model wrote it. */
export interface AgentQuestion {
  question: string;
  header?: string;
  options: Array<{ label: string; description?: string }>;
  multiSelect?: boolean;
}

/** A tool call outside the project's policy, as people see it. */
export interface PermissionAsk {
  tool: string;
  input: Record<string, unknown>;
  /** What the call does, in the agent's words (Bash's description) or the CLI's. */
  description: string | null;
  /** Why the CLI asks (e.g. "This command requires approval"). */
  reason: string | null;
  /** The allow rule "Always allow" adds to the project's policy, e.g. `Bash(make build *)`. */
  rule: string;
}

export type PermissionAnswer =
  | { decision: 'allow' | 'always'; by: string | null }
  | { decision: 'deny'; message: string; by: string | null; stop?: boolean };

export type QuestionAnswer =
  | { answered: true; answers: Record<string, string>; by: string | null }
  /** No answer: the message tells the model; `stop` when the task was blocked for it. */
  | { answered: false; message: string; stop?: boolean };

export interface AgentRequests {
  /** The project's allow rules (Claude Code permission-rule syntax). */
  allowRules(): Promise<string[]>;
  /** Whether people can be asked: questions are offered and calls outside the policy wait. */
  readonly canAsk: boolean;
  askPermission(ask: PermissionAsk, signal: AbortSignal): Promise<PermissionAnswer>;
  askQuestions(questions: AgentQuestion[], signal: AbortSignal): Promise<QuestionAnswer>;
}

/**
 * What ordinary work needs without asking: the file tools (the path guard keeps them in the
 * workspace) and the usual build, test and read-only git commands (run in the sandbox). Edits
 * and simple file commands inside the workspace are allowed by acceptEdits anyway.
 */
export const DEFAULT_TOOL_POLICY: readonly string[] = [
  'Read',
  'Write',
  'Edit',
  'Glob',
  'Grep',
  'NotebookEdit',
  'ToolSearch',
  'Bash(npm test:*)',
  'Bash(npm run test:*)',
  'Bash(npm run build:*)',
  'Bash(npm run lint:*)',
  'Bash(npx jest:*)',
  'Bash(npx tsc:*)',
  'Bash(yarn test:*)',
  'Bash(pnpm test:*)',
  'Bash(pytest:*)',
  'Bash(python -m pytest:*)',
  'Bash(go test:*)',
  'Bash(go build:*)',
  'Bash(cargo test:*)',
  'Bash(cargo build:*)',
  'Bash(make test:*)',
  'Bash(git status:*)',
  'Bash(git diff:*)',
  'Bash(git log:*)',
  'Bash(git show:*)',
  'Bash(git add:*)',
  'Bash(git commit:*)',
];

/** A rule is a tool name, optionally with its content in parentheses: `Read`, `Bash(npm test:*)`. */
const RULE = /^[A-Za-z][A-Za-z0-9_-]*(?:\([^\n]*[^\s()][^\n]*\))?$/;

export const MAX_RULE_LENGTH = 500;

/** Why a rule is not valid (null when it is). */
export function ruleProblem(rule: string): string | null {
  if (rule.length > MAX_RULE_LENGTH) return `A rule is at most ${MAX_RULE_LENGTH} characters.`;
  if (!RULE.test(rule))
    return `'${cutWhole(rule, 80)}' is not a tool rule: write a tool name (Read, WebFetch) or a tool with a pattern, such as Bash(npm test:*) or WebFetch(domain:example.com).`;
  return null;
}

/** The rule "Always allow" stores: the CLI's own suggestion when it made one, else the exact call. */
export function ruleFor(tool: string, input: Record<string, unknown>, suggestions: unknown): string {
  for (const s of Array.isArray(suggestions) ? suggestions : []) {
    const suggestion = s as { type?: string; behavior?: string; rules?: Array<{ toolName?: string; ruleContent?: string }> };
    if (suggestion.type !== 'addRules' || suggestion.behavior !== 'allow') continue;
    const first = suggestion.rules?.find((r) => r.toolName === tool);
    if (!first) continue;
    const rule = first.ruleContent ? `${tool}(${first.ruleContent})` : tool;
    if (!ruleProblem(rule)) return rule;
  }
  if (tool === 'Bash' && typeof input.command === 'string' && input.command.trim()) {
    const command = input.command.trim().replace(/\s+/g, ' ');
    const rule = `Bash(${command})`;
    if (!ruleProblem(rule)) return rule;
    // Never the whole shell: at most the program, as the card shows before anyone clicks.
    return `Bash(${cutWhole(command.split(' ')[0], 200)} *)`;
  }
  return tool;
}
