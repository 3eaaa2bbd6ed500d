export {
  Forges,
  forgeKindOfChangeUrl,
  forgeKindOfRemote,
  mergeMethodFrom,
  remoteHost,
  type ForgesOptions,
  type ForgesReadiness,
} from './choose';
export {
  FORGE_KINDS,
  MERGE_METHODS,
  type ChangeRequestView,
  type Forge,
  type ForgeKind,
  type ForgeReadiness,
  type MergeMethod,
} from './forge';
export { landApproval, type LandedApproval } from './approval';
export { deleteTaskBranch } from './branch-cleanup';
