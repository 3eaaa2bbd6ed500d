import type { App } from '@slack/bolt';
import type { ListenerDeps } from '../index';
import { registerAddRepoModal } from './add-repo';
import { registerNewProjectModal } from './new-project';
import { registerNewTaskModal } from './new-task';
import { registerRequestChangesModal } from './request-changes';
import { registerDenyRequestModal } from './deny-request';
import { registerIntakeEditModal } from './intake-edit';
import { registerIntakeSetupModal } from './intake-setup';

/** Modal submissions: New task, New project, Add a repository, Request changes, Deny, an intake proposal's Edit, Channel intake. */
export function registerViewListeners(app: App, deps: ListenerDeps): void {
  registerNewTaskModal(app, deps);
  registerNewProjectModal(app, deps);
  registerAddRepoModal(app, deps);
  registerRequestChangesModal(app, deps);
  registerDenyRequestModal(app, deps);
  registerIntakeEditModal(app, deps);
  registerIntakeSetupModal(app, deps);
}
