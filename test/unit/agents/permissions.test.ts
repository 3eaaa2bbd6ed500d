import type { AgentRequests } from '../../../src/agents/agent-requests';
import { ruleFor, ruleProblem } from '../../../src/agents/agent-requests';
import { permissionCallback } from '../../../src/agents/permission-callback';

const opts = (extra: Record<string, unknown> = {}) =>
  ({ signal: new AbortController().signal, toolUseID: 't1', ...extra }) as unknown as Parameters<ReturnType<typeof permissionCallback>>[2];

/** People who answer as the test says (the orchestrator's database-backed version is tested in integration). */
function people(answers: Partial<AgentRequests>): AgentRequests {
  return {
    canAsk: true,
    allowRules: async () => [],
    askPermission: async () => ({ decision: 'allow', by: null }),
    askQuestions: async () => ({ answered: false, message: 'none' }),
    ...answers,
  };
}

describe('tool rules', () => {
  it('takes the CLI suggestion, else the exact command, never the whole shell', () => {
    const suggestion = [
      { type: 'addRules', behavior: 'allow', destination: 'localSettings', rules: [{ toolName: 'Bash', ruleContent: 'make build *' }] },
    ];
    expect(ruleFor('Bash', { command: 'make build' }, suggestion)).toBe('Bash(make build *)');
    expect(ruleFor('Bash', { command: 'npm  run   deploy' }, undefined)).toBe('Bash(npm run deploy)');
    expect(ruleFor('Bash', { command: `node ${'x'.repeat(600)}` }, undefined)).toBe('Bash(node *)');
    expect(
      ruleFor('WebFetch', { url: 'https://a.example' }, [
        { type: 'addRules', behavior: 'allow', rules: [{ toolName: 'WebFetch', ruleContent: 'domain:a.example' }] },
      ]),
    ).toBe('WebFetch(domain:a.example)');
    expect(ruleFor('WebSearch', {}, [])).toBe('WebSearch');
  });

  it('accepts tool names and patterns, and says what is wrong with anything else', () => {
    for (const ok of ['Read', 'Bash(npm test:*)', 'WebFetch(domain:example.com)', 'mcp__srv__tool']) expect(ruleProblem(ok)).toBeNull();
    for (const bad of ['rm -rf /', 'Bash(', 'Bash()', '(x)', 'Bash(a\nb)']) expect(ruleProblem(bad)).toMatch(/is not a tool rule/);
  });
});

describe('the permission callback', () => {
  const signal = new AbortController().signal;

  it('with nobody to ask, refuses questions and calls outside the policy with a sentence', async () => {
    const callback = permissionCallback(undefined, signal);
    expect(await callback('AskUserQuestion', { questions: [] }, opts())).toMatchObject({
      behavior: 'deny',
      message: expect.stringContaining('Nobody can answer'),
    });
    expect(await callback('Bash', { command: 'make' }, opts())).toMatchObject({
      behavior: 'deny',
      message: expect.stringContaining('set_tool_policy'),
    });
  });

  it('hands answers to the model as AskUserQuestion expects them', async () => {
    const callback = permissionCallback(
      people({ askQuestions: async () => ({ answered: true, answers: { 'Which?': 'B' }, by: 'U1' }) }),
      signal,
    );
    const input = { questions: [{ question: 'Which?', header: 'H', options: [{ label: 'A', description: 'a' }], multiSelect: false }] };
    expect(await callback('AskUserQuestion', input, opts())).toEqual({
      behavior: 'allow',
      updatedInput: { ...input, answers: { 'Which?': 'B' } },
    });
  });

  it('teaches the session an "always" rule, interrupts on a block, and survives a failure to ask', async () => {
    const always = permissionCallback(
      people({
        askPermission: async (ask) =>
          ask.rule === 'Bash(make build *)' ? { decision: 'always', by: 'U1' } : { decision: 'allow', by: null },
      }),
      signal,
    );
    const suggestions = [{ type: 'addRules', behavior: 'allow', rules: [{ toolName: 'Bash', ruleContent: 'make build *' }] }];
    expect(await always('Bash', { command: 'make build' }, opts({ suggestions }))).toEqual({
      behavior: 'allow',
      updatedInput: { command: 'make build' },
      updatedPermissions: [
        { type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'make build *' }], behavior: 'allow', destination: 'session' },
      ],
    });
    const blocked = permissionCallback(
      people({ askPermission: async () => ({ decision: 'deny', message: 'blocked', by: null, stop: true }) }),
      signal,
    );
    expect(await blocked('Bash', { command: 'x' }, opts())).toEqual({ behavior: 'deny', message: 'blocked', interrupt: true });
    const logs: string[] = [];
    const broken = permissionCallback(
      people({
        askPermission: async () => {
          throw new Error('database is locked');
        },
      }),
      signal,
      (m) => logs.push(m),
    );
    expect(await broken('Bash', { command: 'x' }, opts())).toMatchObject({
      behavior: 'deny',
      message: expect.stringContaining('asking failed'),
    });
    expect(logs).toEqual(['Asking about Bash failed: database is locked']);
  });
});
