export interface ErrorClassification {
  errorType: string;
  suggestedFix: string;
}

interface Rule extends ErrorClassification {
  words: string[];
}

/**
 * The original's categories and order (research §3.5), with whole-word matching instead of
 * substrings. The rule:
 * - case-insensitive; rules are checked in the order below and the first rule with a matching
 *   word wins (so "token quota exceeded" is a quota problem, and a timeout message that also
 *   mentions tokens is a token limit, as in the original);
 * - a word matches only whole: no letter or digit may touch it on either side, while `_`,
 *   `-` and punctuation may. "author" and "tokenizer" match nothing, "oauth" is not "auth"
 *   (it has its own entry), "authentication_failed" is an authentication error, "max_tokens"
 *   and "rate_limit_error" match "tokens" and "rate_limit", and "429" does not match "14290";
 * - a space inside a phrase matches any run of spaces, `_` or `-` ("rate limit" = "rate-limit").
 */
const RULES: Rule[] = [
  {
    words: ['error_max_structured_output_retries'],
    errorType: 'Structured-output failure',
    suggestedFix:
      'The model could not produce valid structured output after several tries. Simplify the task or drop the output-format constraints.',
  },
  {
    words: [
      'auth',
      'oauth',
      'authentication',
      'authenticate',
      'authenticated',
      'unauthenticated',
      'authorization',
      'unauthorized',
      '401',
      'invalid api key',
      'invalid x-api-key',
      'api key',
      'api_key',
    ],
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
    words: ['timeout', 'timeouts', 'timed out', 'time out', 'deadline exceeded'],
    errorType: 'Timeout',
    suggestedFix: 'The run took too long. Simplify the task, or raise the time limit.',
  },
  {
    words: ['config', 'configuration', 'misconfigured', 'misconfiguration', 'invalid model', 'model not found'],
    errorType: 'Configuration error',
    suggestedFix: 'Check the model name, the allowed tools and the MCP server settings.',
  },
  {
    words: ['mcp'],
    errorType: 'MCP server error',
    suggestedFix: 'An MCP server failed. Check its configuration and that it starts on its own.',
  },
  {
    words: ['permission', 'permissions', 'permission denied', 'eacces', 'eperm', 'not permitted'],
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

function escapeForRegex(word: string): string {
  return word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, '[\\s_-]+');
}

const MATCHERS = RULES.map((rule) => ({
  rule,
  pattern: new RegExp(`(?<![\\p{L}\\p{N}])(?:${rule.words.map(escapeForRegex).join('|')})(?![\\p{L}\\p{N}])`, 'iu'),
}));

/** Names the kind of failure in an agent's error message and says what to do about it. */
export function classifyError(message: string | null | undefined): ErrorClassification {
  if (!message?.trim()) return UNKNOWN;
  const match = MATCHERS.find(({ pattern }) => pattern.test(message));
  return match ? { errorType: match.rule.errorType, suggestedFix: match.rule.suggestedFix } : UNEXPECTED;
}
