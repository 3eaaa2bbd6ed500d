import { execFileSync } from 'node:child_process';
import { mainText, renderHookPrompt, renderHookUrl, renderShellCommand } from '../../../src/orchestrator/hook-template';
import { shortCircuitReason } from '../../../src/orchestrator/hook-steps';

describe('renderHookPrompt', () => {
  const steps = [
    { stdout: '', content: 'file text', exit_code: 0 },
    { exit_code: 3, stderr: 'boom' },
  ];

  it('uses the first non-empty main field of a step, else its JSON', () => {
    expect(renderHookPrompt('A={{step_0}}', steps)).toBe('A=file text');
    expect(renderHookPrompt('B={{ step_1 }}', steps)).toBe('B={"exit_code":3,"stderr":"boom"}');
    expect(mainText({ diff: 'x' })).toBe('x');
  });

  it('reads step fields and event fields, dotted paths included', () => {
    const event = { type: 'task_failed', task: { id: 't-1' }, count: 2 };
    expect(renderHookPrompt('{{step_1.exit_code}} {{event.type}} {{event.task.id}} {{event.count}}', steps, event)).toBe(
      '3 task_failed t-1 2',
    );
    expect(renderHookPrompt('{{event}}', steps, { a: 1 })).toBe('{"a":1}');
  });

  it('renders a missing step or event as empty and leaves unknown placeholders as written', () => {
    expect(renderHookPrompt('[{{step_9}}][{{event.type}}][{{project}}][{{ step_x }}]', steps, null)).toBe(
      '[][][{{project}}][{{ step_x }}]',
    );
  });
});

describe('shortCircuitReason', () => {
  it('applies each flag only when its condition holds', () => {
    expect(shortCircuitReason({ skip_llm_if_exit_zero: true }, { exit_code: 0 })).toBe('exit code 0');
    expect(shortCircuitReason({ skip_llm_if_exit_zero: true }, { exit_code: 1 })).toBeNull();
    expect(shortCircuitReason({ skip_llm_if_empty: true }, { stdout: '  \n', content: '' })).toBe('output empty');
    expect(shortCircuitReason({ skip_llm_if_empty: true }, { stdout: 'x' })).toBeNull();
    expect(shortCircuitReason({ skip_llm_if_status_ok: true }, { status_code: 204 })).toBe('HTTP 204');
    expect(shortCircuitReason({ skip_llm_if_status_ok: true }, { status_code: 500 })).toBeNull();
    expect(shortCircuitReason({}, { exit_code: 0 })).toBeNull();
  });
});

describe('renderShellCommand', () => {
  const hostile = `a'b"c $(id) \`id\` \\ ; | * x`;
  /** What /bin/sh prints for the rendered command. */
  const run = (template: string) => {
    const { command, values } = renderShellCommand(template, [{ stdout: 'out put' }], { title: hostile });
    return execFileSync('/bin/sh', ['-c', command], { env: { PATH: process.env.PATH, ...values }, encoding: 'utf8' });
  };

  it('puts no value into the command, only a reference to it', () => {
    const { command, values } = renderShellCommand('echo {{event.title}} {{step_0}} {{nope}}', [{ stdout: 'x' }], { title: hostile });
    expect(command).toBe(`echo "\${AQ_HOOK_VALUE_1}" "\${AQ_HOOK_VALUE_2}" {{nope}}`);
    expect(values).toEqual({ AQ_HOOK_VALUE_1: hostile, AQ_HOOK_VALUE_2: 'x' });
  });

  it('gives each value as one word as written, whatever quotes the placeholder stands in', () => {
    expect(run('printf "[%s]" {{event.title}}')).toBe(`[${hostile}]`);
    expect(run('printf "[%s]" "<{{event.title}}>"')).toBe(`[<${hostile}>]`);
    expect(run('printf "[%s]" \'<{{event.title}}>\'')).toBe(`[<${hostile}>]`);
    expect(run('printf "[%s]" "\\"{{step_0}}\\"" {{step_0}}')).toBe('["out put"][out put]');
    expect(run('printf "[%s]" it\\\'s{{step_0}}')).toBe("[it'sout put]");
  });
});

describe('renderHookUrl', () => {
  const event = { title: 'a b&c=d/../e?#', host: 'example.com', base: 'https://example.com/api' };

  it('encodes a value in the path, query and fragment', () => {
    expect(renderHookUrl('https://x.test/t/{{event.title}}?q={{event.title}}#{{event.title}}', [], event)).toBe(
      `https://x.test/t/${encodeURIComponent(event.title)}?q=${encodeURIComponent(event.title)}#${encodeURIComponent(event.title)}`,
    );
  });

  it("takes a value before the path as written: the admin's templated host or base URL", () => {
    expect(renderHookUrl('https://{{event.host}}/v1?t={{event.title}}', [], event)).toBe(
      `https://example.com/v1?t=${encodeURIComponent(event.title)}`,
    );
    expect(renderHookUrl('{{event.base}}/items', [], event)).toBe('https://example.com/api/items');
    expect(renderHookUrl('https://x.test/{{nothing.here}}', [], event)).toBe('https://x.test/{{nothing.here}}');
  });
});
