import { Entity, Index, ManyToOne, PrimaryKeyProp } from '@mikro-orm/core';
import { Task } from './task';

/** `task` may start only when `dependsOn` is COMPLETED. */
@Entity({ tableName: 'task_dependencies' })
@Index({ name: 'task_dependencies_downstream', properties: ['dependsOn', 'task'] })
export class TaskDependency {
  @ManyToOne(() => Task, { primary: true, deleteRule: 'cascade', fieldName: 'task_id' })
  task!: Task;

  @ManyToOne(() => Task, { primary: true, deleteRule: 'cascade', fieldName: 'depends_on_id' })
  dependsOn!: Task;

  [PrimaryKeyProp]?: ['task', 'dependsOn'];
}
