// Times are `type: DateTimeType` (the class). With the string 'datetime', MikroORM compared the
// Date it read with the epoch milliseconds it writes, so every entity read looked changed and was
// written back at the transaction's end (test/integration/db/clean-entities.test.ts).
export * from './project';
export * from './task';
export * from './task-dependency';
export * from './agent';
export * from './repo';
export * from './workspace';
export * from './hook';
export * from './hook-run';
export * from './event';
export * from './task-result';
export * from './token-usage';
export * from './chat-thread';
export * from './task-thread';
export * from './task-room';
export * from './task-source-thread';
export * from './system-state';
export * from './processed-event';

import { Project } from './project';
import { Task } from './task';
import { TaskDependency } from './task-dependency';
import { Agent } from './agent';
import { Repo } from './repo';
import { Workspace } from './workspace';
import { Hook } from './hook';
import { HookRun } from './hook-run';
import { Event } from './event';
import { TaskResult } from './task-result';
import { TokenUsage } from './token-usage';
import { ChatThread } from './chat-thread';
import { TaskThread } from './task-thread';
import { TaskRoom } from './task-room';
import { TaskSourceThread } from './task-source-thread';
import { SystemState } from './system-state';
import { ProcessedSlackEvent } from './processed-event';

export const ALL_ENTITIES = [
  Project,
  Task,
  TaskDependency,
  Agent,
  Repo,
  Workspace,
  Hook,
  HookRun,
  Event,
  TaskResult,
  TokenUsage,
  ChatThread,
  TaskThread,
  TaskRoom,
  TaskSourceThread,
  SystemState,
  ProcessedSlackEvent,
];
