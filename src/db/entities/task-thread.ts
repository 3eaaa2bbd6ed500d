import { DateTimeType, Entity, Index, ManyToOne, Opt, Property } from '@mikro-orm/core';
import { Task } from './task';

/** The chat thread where a task's progress is reported (one per task). */
@Entity({ tableName: 'task_threads' })
@Index({ name: 'task_threads_channel_thread', properties: ['channelId', 'threadTs'] })
export class TaskThread {
  @ManyToOne(() => Task, { primary: true, deleteRule: 'cascade', fieldName: 'task_id' })
  task!: Task;

  @Property({ type: 'string' })
  channelId!: string;

  @Property({ type: 'string' })
  threadTs!: string;

  @Property({ type: DateTimeType })
  createdAt: Date & Opt = new Date();
}
