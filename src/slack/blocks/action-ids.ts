/**
 * Every action id our messages, modals and the Home carry, declared once and grouped by the
 * listener file that handles it. Renderers put these on their elements and listeners register
 * them with `onAction` (listeners/actions/on-action.ts), both importing from here — the listener
 * layer may import the renderers' layer but not the reverse, so this is where "beside the
 * listener" can live. test/unit/slack/action-ids.test.ts proves each id has a listener and each
 * rendered id is declared.
 */

/** listeners/actions/task-buttons.ts */
export const TASK_BUTTONS = {
  approve: 'aq_approve_task',
  skip: 'aq_skip_task',
  restart: 'aq_restart_task',
  stop: 'aq_stop_task',
  agentError: 'aq_get_agent_error',
  pagePrev: 'aq_tasks_page_prev',
  pageNext: 'aq_tasks_page_next',
} as const;

/** listeners/actions/request-changes.ts */
export const REQUEST_CHANGES_BUTTONS = { open: 'aq_request_changes' } as const;

/** listeners/actions/home-buttons.ts */
export const HOME_BUTTONS = {
  newTask: 'aq_open_new_task',
  newProject: 'aq_open_new_project',
  addRepo: 'aq_open_add_repo',
  firstAgent: 'aq_create_first_agent',
  resumeProject: 'aq_resume_project',
  resumeScheduling: 'aq_resume_scheduling',
  refresh: 'aq_home_refresh',
} as const;

/** listeners/actions/chat-confirm.ts: Confirm / Cancel on a call the chat model asked to make. */
export const CHAT_BUTTONS = { confirm: 'aq_confirm', cancel: 'aq_cancel' } as const;

/** listeners/actions/chat-feedback.ts: Slack's feedback buttons, or ours with a `_good` / `_bad` suffix. */
export const FEEDBACK_BUTTONS = { rate: 'aq_chat_feedback', good: 'aq_chat_feedback_good', bad: 'aq_chat_feedback_bad' } as const;

/** listeners/actions/agent-requests.ts: answers to an agent's questions and permission requests. */
export const REQUEST_ACTIONS = {
  allow: 'aq_request_allow',
  always: 'aq_request_always',
  deny: 'aq_request_deny',
  /** One button per option: `aq_request_option:<question>:<option>`, value `<request>:<question>:<option>`. */
  optionPrefix: 'aq_request_option',
  /** A multi-select question's checkboxes (option values are the option's index)… */
  choices: 'aq_request_choices',
  /** …and the button that answers with every ticked option, value `<request>:<question>`. */
  submitChoices: 'aq_request_submit_choices',
} as const;

/** listeners/actions/automation-buttons.ts: the Home's Pause / Resume on an automation. */
export const AUTOMATION_BUTTONS = { pause: 'aq_pause_automation', resume: 'aq_resume_automation', addIntake: 'aq_add_intake' } as const;

/** listeners/commands/help-pages.ts: the page buttons of `/aq help`. */
export const HELP_BUTTONS = { page: 'aq_help_page' } as const;

/** listeners/actions/merge-train-buttons.ts: an admin moves a task up the merge train or takes it out. */
export const MERGE_TRAIN_BUTTONS = { moveUp: 'aq_merge_train_move_up', takeOut: 'aq_merge_train_take_out' } as const;

/** listeners/actions/intake-buttons.ts: a channel intake's proposed task. Value: the proposal (intake-proposal.ts). */
export const INTAKE_BUTTONS = {
  create: 'aq_intake_create',
  edit: 'aq_intake_edit',
  dismiss: 'aq_intake_dismiss',
  retry: 'aq_intake_retry',
} as const;

/**
 * listeners/actions/plan-canvas-buttons.ts: a plan canvas's edits, read back and shown (value: the
 * task), applied (value: `<task> <hash of the canvas shown>`) or dropped (value: the task).
 */
export const PLAN_CANVAS_BUTTONS = {
  check: 'aq_plan_canvas_check',
  apply: 'aq_plan_canvas_apply',
  discard: 'aq_plan_canvas_discard',
} as const;

/** Every declared id, for the test that each one has a listener. */
export const ALL_ACTION_IDS: readonly string[] = [
  TASK_BUTTONS,
  REQUEST_CHANGES_BUTTONS,
  HOME_BUTTONS,
  CHAT_BUTTONS,
  FEEDBACK_BUTTONS,
  REQUEST_ACTIONS,
  HELP_BUTTONS,
  AUTOMATION_BUTTONS,
  MERGE_TRAIN_BUTTONS,
  INTAKE_BUTTONS,
  PLAN_CANVAS_BUTTONS,
].flatMap((group) => Object.values(group));
