import { DateTimeType, Entity, ManyToOne, Opt, PrimaryKey, Property } from '@mikro-orm/core';
import { Project } from './project';

export const REPO_SOURCE_TYPES = ['clone', 'link', 'init'] as const;
export type RepoSourceType = (typeof REPO_SOURCE_TYPES)[number];

@Entity({ tableName: 'repos' })
export class Repo {
  @PrimaryKey({ type: 'string' })
  id!: string;

  @ManyToOne(() => Project, { deleteRule: 'cascade', fieldName: 'project_id' })
  project!: Project;

  @Property({ type: 'string' })
  name!: string;

  @Property({ type: 'string' })
  sourceType!: RepoSourceType;

  @Property({ type: 'string', nullable: true })
  url?: string | null;

  @Property({ type: 'string', nullable: true })
  sourcePath?: string | null;

  @Property({ type: 'string', default: 'main' })
  defaultBranch: string & Opt = 'main';

  @Property({ type: 'string', nullable: true })
  checkoutBasePath?: string | null;

  @Property({ type: DateTimeType })
  createdAt: Date & Opt = new Date();
}
