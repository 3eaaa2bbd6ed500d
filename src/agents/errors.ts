export interface ErrorClassification {
  errorType: string;
  suggestedFix: string;
}

interface Rule extends ErrorClassification {
  words: string[];
}

/**
 * Checked in order; the first rule with a matching word wins. Words match whole: letters and
 * digits may not touch them, but `_` and punctuation may — so "authentication_failed" is an
 * authentication error while "author" is not, and "max_tokens" is a token limit.
 */
const RULES: Rule[] = [
  {
    words: ['error_max_structured_output_retries'],
    errorType: 'Structured-output failure',
    suggestedFix: 'The model could not produce valid structured output after several tries. Simplify the task or drop the output-format constraints.',
  },
  {
    words: ['auth', 'authentication', 'unauthorized', 'invalid api key', 'invalid x-api-key'],
    errorType: 'Authentication error',
    suggestedFix: 'Check that ANTHROPIC_API_KEY (or the Claude Code login) is valid and not expired, then restart the task.',
  },
  {
    words: ['rate_limit', 'rate limit', 'rate limited', 'rate-limited', '429', 'overloaded'],
    errorType: 'Rate limit',
    suggestedFix: 'The API rate limit was hit. The task is paused and resumes on its own when the limit resets.',
  },
  {
    words: ['quota', 'usage limit', 'hit your limit'],
    errorType: 'Token quota exhausted',
    suggestedFix: 'The daily or session quota is used up. Wait for the reset (the task resumes by itself) or raise the limit.',
  },
  {
    words: ['token', 'tokens', 'context window', 'context length', 'prompt is too long'],
    errorType: 'Token limit',
    suggestedFix: 'The context window or token budget was exceeded. Split the task into smaller tasks.',
  },
  {
    words: ['timeout', 'timed out', 'time out', 'deadline exceeded'],
    errorType: 'Timeout',
    suggestedFix: 'The run took too long. Simplify the task, or raise the time limit.',
  },
  {
    words: ['config', 'configuration', 'invalid model', 'model not found'],
    errorType: 'Configuration error',
    suggestedFix: 'Check the model name, the allowed tools and the MCP server settings.',
  },
  {
    words: ['mcp'],
    errorType: 'MCP server error',
    suggestedFix: 'An MCP server failed. Check its configuration and that it starts on its own.',
  },
  {
    words: ['permission', 'permission denied', 'eacces', 'eperm', 'not permitted'],
    errorType: 'Permission denied',
    suggestedFix: 'A file or directory could not be accessed. Check the workspace permissions.',
  },
  {
    words: ['cancelled', 'canceled', 'aborted', 'stopped'],
    errorType: 'Cancelled',
    suggestedFix: 'The task was stopped by a person. Restart it when you want it to run again.',
  },
];

const UNKNOWN: ErrorClassification = {
  errorType: 'Unknown error',
  suggestedFix: 'No error message was recorded. Check the daemon log for details.',
};

const UNEXPECTED: ErrorClassification = {
  errorType: 'Unexpected error',
  suggestedFix: 'Read the error message and the agent summary; check the daemon log for details, then restart or skip the task.',
};

function escape(word: string): string {
  return word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, '[\\s_-]+');
}

const MATCHERS = RULES.map((rule) => ({
  rule,
  pattern: new RegExp(`(?<![\\p{L}\\p{N}])(?:${rule.words.map(escape).join('|')})(?![\\p{L}\\p{N}])`, 'iu'),
}));

/** Names the kind of failure in an agent's error message and says what to do about it. */
export function classifyError(message: string | null | undefined): ErrorClassification {
  if (!message || !message.trim()) return UNKNOWN;
  const match = MATCHERS.find(({ pattern }) => pattern.test(message));
  return match ? { errorType: match.rule.errorType, suggestedFix: match.rule.suggestedFix } : UNEXPECTED;
}
