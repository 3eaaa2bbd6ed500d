/*
 * The values a column may hold, where the app names them: a task's statuses, an agent's states,
 * a project's settings and the like. The tables themselves are the migrations' (src/db/migrations).
 */

/**
 * Every status a task can be in. The spec names READY, IN_PROGRESS, AWAITING_APPROVAL,
 * COMPLETED, BLOCKED and FAILED; scheduling adds DEFINED (waiting on dependencies),
 * ASSIGNED, PAUSED (with resume_after) and WAITING_INPUT.
 */
export const TASK_STATUSES = [
  'DEFINED',
  'READY',
  'ASSIGNED',
  'IN_PROGRESS',
  'WAITING_INPUT',
  'PAUSED',
  'AWAITING_APPROVAL',
  'COMPLETED',
  'FAILED',
  'BLOCKED',
] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** The statuses of a task while a run holds it: claimed, running, or waiting on a person. */
export const RUNNING_STATUSES = ['ASSIGNED', 'IN_PROGRESS', 'WAITING_INPUT'] as const satisfies readonly TaskStatus[];

/**
 * RUNNING_STATUSES as SQL literals (`'ASSIGNED', …`), for `status in (…)`: written into a
 * statement's text, where PostgreSQL plans a literal list once; bound values can make it plan at
 * every run.
 */
export const RUNNING_SQL = RUNNING_STATUSES.map((s) => `'${s}'`).join(', ');

export type ProjectStatus = 'ACTIVE' | 'PAUSED';

/** How a task branch is brought up to date with the base before it lands. */
export const LANDING_MODES = ['rebase', 'merge'] as const;
export type LandingMode = (typeof LANDING_MODES)[number];

/** What an overlap between two live tasks does: `warn` in their threads, or also `serialize` new starts. */
export const OVERLAP_POLICIES = ['warn', 'serialize'] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];

/** Which of a project's tasks get a Slack room (code channel): all, those needing approval, none. */
export const TASK_ROOMS_SETTINGS = ['all', 'approval', 'off'] as const;
export type TaskRoomsSetting = (typeof TASK_ROOMS_SETTINGS)[number];

export type AgentState = 'IDLE' | 'BUSY' | 'PAUSED';

export type RepoSourceType = 'clone' | 'link' | 'init';

/** When a hook runs, as create_hook and edit_hook check it; `skip_llm` runs its context steps only. */
export type HookTrigger = ({ type: 'periodic'; interval_seconds: number } | { type: 'event'; event_type: string }) & {
  skip_llm?: boolean;
};
export type HookContextStep = Record<string, unknown>;

export type HookRunStatus = 'running' | 'completed' | 'failed' | 'skipped';

/** What spent the tokens of a usage row. */
export type TokenSource = 'agent' | 'chat' | 'hook' | 'plan_parser';
