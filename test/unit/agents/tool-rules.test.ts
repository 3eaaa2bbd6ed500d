import { DEFAULT_TOOL_POLICY } from '../../../src/agents/agent-requests';
import { toolRulesForSdk } from '../../../src/agents/claude-code';

/**
 * The Agent SDK warns (CLAUDE_SDK_CAN_USE_TOOL_SHADOWED) on every run whose allowedTools holds a
 * bare tool name while a permission callback is given: the name would approve the whole tool
 * before the callback is asked. The adapter always gives a callback, so no bare name may reach
 * allowedTools, and every bare rule must still be allowed by the callback.
 */
describe('tool rules given to the SDK', () => {
  const bare = (rules: string[]) => rules.filter((rule) => !rule.includes('('));

  it('keeps bare names out of allowedTools for the default policy, and hands them to the callback', () => {
    const { allowedTools, wholeTools } = toolRulesForSdk(DEFAULT_TOOL_POLICY);
    expect(bare(DEFAULT_TOOL_POLICY.slice()).length).toBeGreaterThan(0);
    expect(bare(allowedTools)).toEqual([]);
    for (const rule of bare(DEFAULT_TOOL_POLICY.slice())) expect(wholeTools.has(rule)).toBe(true);
  });

  it('keeps rules with content, and offers Glob and Grep by a rule that does not shadow the callback', () => {
    const { allowedTools, wholeTools } = toolRulesForSdk(['Read', 'Glob', 'Grep', 'Bash(npm test:*)']);
    expect(allowedTools).toEqual(['Bash(npm test:*)', 'Glob(**)', 'Grep(**)']);
    expect([...wholeTools].sort()).toEqual(['Glob', 'Grep', 'Read']);
  });

  it('offers no search tool the policy does not allow', () => {
    expect(toolRulesForSdk(['Read', 'Bash(git status)']).allowedTools).toEqual(['Bash(git status)']);
  });
});
