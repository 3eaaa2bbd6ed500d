import { DateTimeType, Entity, Index, ManyToOne, Opt, Property } from '@mikro-orm/core';
import { Task } from './task';

/**
 * A task's room: the Slack code channel opened for it (one per task, across retries and
 * restarts), the views it shows and the context bar last written, so a change is sent once.
 */
@Entity({ tableName: 'task_rooms' })
export class TaskRoom {
  @ManyToOne(() => Task, { primary: true, deleteRule: 'cascade', fieldName: 'task_id' })
  task!: Task;

  @Index({ name: 'task_rooms_channel' })
  @Property({ type: 'string' })
  channelId!: string;

  @Property({ type: 'string', nullable: true })
  url?: string | null;

  /** The view keys the room shows (`diff`, `pull_request`, `plan`), as JSON. */
  @Property({ type: 'text', default: '[]' })
  views: string & Opt = '[]';

  /** A hash of the context bar last written (unchanged bars are not sent again). */
  @Property({ type: 'string', nullable: true })
  contextHash?: string | null;

  /** A hash of the diff view last written. */
  @Property({ type: 'string', nullable: true })
  diffHash?: string | null;

  /** What the last diff written changed (JSON: files, insertions, deletions): the summary's numbers once the branch is merged. */
  @Property({ type: 'text', nullable: true })
  diffStats?: string | null;

  @Property({ type: DateTimeType, nullable: true })
  archivedAt?: Date | null;

  @Property({ type: DateTimeType })
  createdAt: Date & Opt = new Date();
}
