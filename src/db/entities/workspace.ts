import { DateTimeType, Entity, Index, ManyToOne, Opt, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import { Project } from './project';
import type { RepoSourceType } from './repo';

/** A git checkout an agent works in. At most one task holds its lock at a time. */
@Entity({ tableName: 'workspaces' })
@Index({ name: 'workspaces_project_lock', properties: ['project', 'lockedByTaskId'] })
export class Workspace {
  @PrimaryKey({ type: 'string' })
  id!: string;

  @ManyToOne(() => Project, { deleteRule: 'cascade', fieldName: 'project_id' })
  project!: Project;

  @Property({ type: 'string' })
  name!: string;

  @Unique()
  @Property({ type: 'string' })
  path!: string;

  @Property({ type: 'string', default: 'clone' })
  sourceType: RepoSourceType & Opt = 'clone';

  @Property({ type: 'string', nullable: true })
  repoId?: string | null;

  /** The `aq worker` whose machine holds this checkout (no one else touches it); null for the app's. */
  @Property({ type: 'string', nullable: true })
  workerId?: string | null;

  @Property({ type: 'string', nullable: true })
  lockedByTaskId?: string | null;

  @Property({ type: 'string', nullable: true })
  lockedByAgentId?: string | null;

  @Property({ type: DateTimeType, nullable: true })
  lockedAt?: Date | null;

  @Property({ type: DateTimeType })
  createdAt: Date & Opt = new Date();
}
