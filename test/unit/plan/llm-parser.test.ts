import type { ChatProvider, ChatResponse, CreateMessageRequest } from '../../../src/model/provider';
import { EXTRACT_PLAN_STEPS_TOOL, parsePlanWithLlm, PLAN_PARSER_MAX_TOKENS, PLAN_PARSER_SYSTEM_PROMPT } from '../../../src/plan/llm-parser';
import { parsePlan } from '../../../src/plan/parser';

/** Stands in for the remote model: answers each request from a script. */
class ScriptedProvider implements ChatProvider {
  readonly model = 'scripted';
  readonly requests: CreateMessageRequest[] = [];
  constructor(private readonly answer: (request: CreateMessageRequest) => Partial<ChatResponse> | Error) {}
  async createMessage(request: CreateMessageRequest): Promise<ChatResponse> {
    this.requests.push(request);
    const answer = this.answer(request);
    if (answer instanceof Error) throw answer;
    return {
      text: '',
      toolUses: [],
      content: [],
      stopReason: 'end_turn',
      usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheCreationTokens: 0 },
      ...answer,
    };
  }
}

const PLAN = '# Plan\n\n## Step 1: Build the API\nWrite endpoints and tests for them.\n';

const toolAnswer = (steps: unknown) => () => ({
  toolUses: [{ id: 't1', name: 'extract_plan_steps', input: { steps } }],
});

describe('parsePlanWithLlm', () => {
  it('sends one user message with the plan, the fixed prompt, one tool and 4096 max tokens', async () => {
    const provider = new ScriptedProvider(toolAnswer([{ title: 'Do it', description: 'All of it' }]));
    await parsePlanWithLlm(PLAN, provider);
    expect(provider.requests).toHaveLength(1);
    const [request] = provider.requests;
    expect(request.system).toBe(PLAN_PARSER_SYSTEM_PROMPT);
    expect(request.messages).toEqual([{ role: 'user', content: PLAN }]);
    expect(request.tools).toEqual([EXTRACT_PLAN_STEPS_TOOL]);
    expect(request.maxTokens).toBe(PLAN_PARSER_MAX_TOKENS);
    expect(PLAN_PARSER_MAX_TOKENS).toBe(4096);
    const schema = EXTRACT_PLAN_STEPS_TOOL.inputSchema as { required: string[]; properties: { steps: { items: { required: string[] } } } };
    expect(schema.required).toEqual(['steps']);
    expect(schema.properties.steps.items.required).toEqual(['title', 'description']);
  });

  it('turns the tool call into steps, skipping blank ones, with hints from list positions', async () => {
    const provider = new ScriptedProvider(
      toolAnswer([
        { title: ' Add login ', description: ' Details ' },
        { title: '   ', description: 'no title' },
        { title: 'No description', description: '' },
        { title: 'Add logout', description: 'More' },
      ]),
    );
    const plan = await parsePlanWithLlm(PLAN, provider, { sourceFile: '/w/plan.md' });
    expect(plan).toEqual({
      sourceFile: '/w/plan.md',
      rawContent: PLAN,
      steps: [
        { title: 'Add login', description: 'Details', priorityHint: 0 },
        { title: 'Add logout', description: 'More', priorityHint: 3 },
      ],
    });
  });

  it('cuts the list to max_steps before converting it', async () => {
    const listed = Array.from({ length: 30 }, (_, i) => ({ title: `S${i}`, description: 'd' }));
    const provider = new ScriptedProvider(toolAnswer(listed));
    expect((await parsePlanWithLlm(PLAN, provider)).steps).toHaveLength(20);
    const three = await parsePlanWithLlm(PLAN, new ScriptedProvider(toolAnswer([{ title: '', description: 'x' }, ...listed])), {
      maxSteps: 3,
    });
    expect(three.steps.map((s) => [s.title, s.priorityHint])).toEqual([
      ['S0', 1],
      ['S1', 2],
    ]);
  });

  it('falls back to the rule-based parser on a text answer or another tool, with the same options', async () => {
    const text = new ScriptedProvider(() => ({ text: 'Here are the steps…' }));
    expect(await parsePlanWithLlm(PLAN, text, { sourceFile: '/p.md', maxSteps: 5 })).toEqual(
      parsePlan(PLAN, { sourceFile: '/p.md', maxSteps: 5 }),
    );
    const other = new ScriptedProvider(() => ({ toolUses: [{ id: 'x', name: 'something_else', input: {} }] }));
    expect((await parsePlanWithLlm(PLAN, other)).steps.map((s) => s.title)).toEqual(['Build the API']);
  });

  it('lets provider errors propagate', async () => {
    const failing = new ScriptedProvider(() => new Error('rate limited'));
    await expect(parsePlanWithLlm(PLAN, failing)).rejects.toThrow('rate limited');
  });
});
