import type { Result } from '../../src/slack/blocks/result-types';

/**
 * A get_task result as the command gives it, for drawing a card without a database: every key
 * the command always sends, with `overrides` over them. Typed on the command's result, so a key it
 * renames fails the type check here too.
 */
export function taskResult(overrides: Partial<Result<'get_task'>> = {}): Result<'get_task'> {
  return {
    id: 't-1',
    project_id: 'web',
    title: 'Fix it',
    description: '',
    status: 'READY',
    priority: 5,
    assigned_agent: null,
    retry_count: 0,
    max_retries: 3,
    requires_approval: false,
    tokens: 0,
    cost_usd: 0,
    ...overrides,
  };
}
