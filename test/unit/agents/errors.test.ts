import { classifyError } from '../../../src/agents/errors';

describe('classifyError', () => {
  it.each([
    ['error_max_structured_output_retries: gave up', 'Structured-output failure'],
    ['authentication_failed', 'Authentication error'],
    ['Invalid API key · Fix external API key', 'Authentication error'],
    ['401 Unauthorized', 'Authentication error'],
    ['API Error: 429 rate_limit_error', 'Rate limit'],
    ['We are being rate limited', 'Rate limit'],
    ["You've hit your limit · resets 3pm", 'Token quota exhausted'],
    ['monthly quota exceeded', 'Token quota exhausted'],
    ['max_tokens reached', 'Token limit'],
    ['prompt is too long: 210000 tokens', 'Token limit'],
    ['Command timed out after 60s', 'Timeout'],
    ['bad config value', 'Configuration error'],
    ['MCP server "files" crashed', 'MCP server error'],
    ['EACCES: permission denied, open /x', 'Permission denied'],
    ['Agent was stopped', 'Cancelled'],
    ['Claude Code process aborted by user', 'Cancelled'],
    ['OAuth token has expired', 'Authentication error'],
    ['Failed to authenticate. API Error: 401', 'Authentication error'],
    ['ANTHROPIC_API_KEY is not set', 'Authentication error'],
    ['Request failed: rate-limit exceeded', 'Rate limit'],
    ['Overloaded', 'Rate limit'],
    ['context window exceeded', 'Token limit'],
    ['deadline exceeded', 'Timeout'],
    ['model not found: claude-x', 'Configuration error'],
    ['Claude Code lacks permissions for /etc', 'Permission denied'],
    ['Request cancelled', 'Cancelled'],
    ['segfault in module', 'Unexpected error'],
  ])('%j is a %s', (message, type) => {
    expect(classifyError(message).errorType).toBe(type);
  });

  it('matches whole words only', () => {
    expect(classifyError('the author of the file changed it').errorType).toBe('Unexpected error');
    expect(classifyError('tokenizer crashed').errorType).toBe('Unexpected error');
    expect(classifyError('reconfigure the thing').errorType).toBe('Unexpected error');
    expect(classifyError('request 14290 crashed').errorType).toBe('Unexpected error');
    expect(classifyError('The AUTHORS file is missing').errorType).toBe('Unexpected error');
    expect(classifyError('tokenization went wrong; no such commit').errorType).toBe('Unexpected error');
    expect(classifyError('stop_reason: max_tokens').errorType).toBe('Token limit');
  });

  it('takes the first rule that matches', () => {
    expect(classifyError('auth failed after timeout').errorType).toBe('Authentication error');
    expect(classifyError('timeout while counting tokens').errorType).toBe('Token limit');
    expect(classifyError('token quota exhausted').errorType).toBe('Token quota exhausted');
    expect(classifyError('rate limit hit, quota fine').errorType).toBe('Rate limit');
    expect(classifyError('MCP config invalid').errorType).toBe('Configuration error');
  });

  it('calls an empty message unknown and always suggests a fix', () => {
    expect(classifyError('')).toEqual({ errorType: 'Unknown error', suggestedFix: expect.stringMatching(/log/) });
    expect(classifyError(null).errorType).toBe('Unknown error');
    expect(classifyError('x').suggestedFix.length).toBeGreaterThan(10);
  });
});
