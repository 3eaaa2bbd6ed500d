import { DateTimeType, Entity, Index, Opt, PrimaryKey, Property } from '@mikro-orm/core';

export const AGENT_STATES = ['IDLE', 'BUSY', 'PAUSED'] as const;
export type AgentState = (typeof AGENT_STATES)[number];

@Entity({ tableName: 'agents' })
export class Agent {
  @PrimaryKey({ type: 'string' })
  id!: string;

  @Property({ type: 'string' })
  name!: string;

  @Property({ type: 'string', default: 'claude' })
  type: string & Opt = 'claude';

  @Index()
  @Property({ type: 'string', default: 'IDLE' })
  state: AgentState & Opt = 'IDLE';

  @Property({ type: 'string', nullable: true })
  currentTask?: string | null;

  @Property({ type: 'string', nullable: true })
  checkoutPath?: string | null;

  @Property({ type: 'string', nullable: true })
  repoId?: string | null;

  /** The `aq worker` this agent runs on; null for the app's own agents. */
  @Property({ type: 'string', nullable: true })
  workerId?: string | null;

  @Property({ type: DateTimeType, nullable: true })
  lastHeartbeat?: Date | null;

  /** `claude-code`, or `acp` with the configured profile that starts the agent. */
  @Property({ type: 'string', default: 'claude-code' })
  backend: string & Opt = 'claude-code';

  @Property({ type: 'string', nullable: true })
  profile?: string | null;

  @Property({ type: DateTimeType })
  createdAt: Date & Opt = new Date();
}
