import { DateTimeType, Entity, Index, ManyToOne, Opt, Property } from '@mikro-orm/core';
import { Task } from './task';

/**
 * The Slack thread a task was reported in (a channel intake's message), so the reporter can
 * steer the task from there as from its own thread. One per task.
 */
@Entity({ tableName: 'task_source_threads' })
@Index({ name: 'task_source_threads_place', properties: ['channelId', 'threadTs'] })
export class TaskSourceThread {
  @ManyToOne(() => Task, { primary: true, deleteRule: 'cascade', fieldName: 'task_id' })
  task!: Task;

  @Property({ type: 'string' })
  channelId!: string;

  @Property({ type: 'string' })
  threadTs!: string;

  @Property({ type: DateTimeType })
  createdAt: Date & Opt = new Date();
}
