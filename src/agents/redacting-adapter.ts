import type { AgentAdapter, AgentRunOutcome, AgentRunRequest } from './adapter';
import type { AgentQuestion, AgentRequests, QuestionAnswer } from './agent-requests';
import { redactDeep, type Redact } from './secret-redaction';
import { errorMessage } from '../util/error-message';

/**
 * Every text an agent hands the app — progress lines, its answer, its error, its questions and
 * permission requests — passes here on its way to the database and Slack, with the app's own
 * secret values redacted. What the agent itself receives is left as it is.
 */
export function redactingAdapter(adapter: AgentAdapter, redact: Redact): AgentAdapter {
  return {
    type: adapter.type,
    async run(request: AgentRunRequest): Promise<AgentRunOutcome> {
      const { onProgress, agentRequests } = request;
      let outcome: AgentRunOutcome;
      try {
        outcome = await adapter.run({
          ...request,
          ...(onProgress && { onProgress: (line: string) => onProgress(redact(line)) }),
          ...(agentRequests && { agentRequests: redactingRequests(agentRequests, redact) }),
        });
      } catch (err) {
        throw new Error(redact(errorMessage(err)));
      }
      return {
        ...outcome,
        summary: redact(outcome.summary),
        errorMessage: outcome.errorMessage === null ? null : redact(outcome.errorMessage),
      };
    },
  };
}

function redactingRequests(requests: AgentRequests, redact: Redact): AgentRequests {
  return {
    get canAsk() {
      return requests.canAsk;
    },
    allowRules: () => requests.allowRules(),
    askPermission: (ask, signal) =>
      requests.askPermission(
        {
          tool: ask.tool,
          input: redactDeep(ask.input, redact),
          description: ask.description === null ? null : redact(ask.description),
          reason: ask.reason === null ? null : redact(ask.reason),
          rule: redact(ask.rule),
        },
        signal,
      ),
    async askQuestions(questions, signal) {
      const shown: AgentQuestion[] = redactDeep(questions, redact);
      return restoreAnswers(await requests.askQuestions(shown, signal), questions, shown);
    },
  };
}

/** Answers name questions and options as people saw them; the agent gets back its own words. */
function restoreAnswers(answer: QuestionAnswer, asked: AgentQuestion[], shown: AgentQuestion[]): QuestionAnswer {
  if (!answer.answered) return answer;
  const answers: Record<string, string> = {};
  for (const [question, value] of Object.entries(answer.answers)) {
    const index = shown.findIndex((q) => q.question === question);
    if (index < 0) {
      answers[question] = value;
      continue;
    }
    const labels = new Map(shown[index].options.map((o, i) => [o.label, asked[index].options[i].label]));
    answers[asked[index].question] = labels.get(value) ?? value;
  }
  return { ...answer, answers };
}
