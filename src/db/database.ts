import type { SqlEntityManager } from '@mikro-orm/sqlite';
import { dialectOf, type SqlDialect } from './dialect';
import { WorkNotifier } from './work-notifier';
import { openOrm, type AnyMikroORM, type DatabaseTarget, type OpenOptions } from './orm';
import { ProjectRepository } from './repositories/projects';
import { TaskRepository } from './repositories/tasks';
import { EventRepository } from './repositories/events';
import { SystemStateRepository } from './repositories/system-state';
import { StatusSummaryRepository } from './repositories/status-summary';
import { HookRunRepository } from './repositories/hook-runs';
import { ChatThreadRepository } from './repositories/chat-threads';
import { ProcessedEventRepository } from './repositories/processed-events';
import { TaskThreadRepository } from './repositories/task-threads';
import { TaskRoomRepository } from './repositories/task-rooms';
import { TaskSourceThreadRepository } from './repositories/task-source-threads';
import { HookRepository } from './repositories/hooks';
import { AgentRepository } from './repositories/agents';
import { TaskResultRepository } from './repositories/task-results';
import { TokenUsageRepository } from './repositories/token-usage';
import { RepoRepository } from './repositories/repos';
import { WorkspaceRepository } from './repositories/workspaces';
import { SchedulingRepository } from './repositories/scheduling';
import { TaskRunRepository } from './repositories/task-runs';
import { PlanChainRepository } from './repositories/plan-chains';
import { BudgetRepository } from './repositories/budgets';
import { ProjectSteererRepository, TaskMessageRepository } from './repositories/task-messages';
import { AgentRequestRepository, ToolPolicyRepository } from './repositories/agent-requests';
import { RunRecordRepository } from './repositories/run-records';
import { WorkerRepository } from './repositories/workers';
import { MergeTrainRepository } from './repositories/merge-train';
import { RestartRequestRepository } from './repositories/restart-requests';
import { ReconciliationRepository } from './repositories/reconciliation';
import { AutomationRepository } from './repositories/automations';
import { TouchedFileRepository } from './repositories/touched-files';
import { TaskOverlapRepository } from './repositories/task-overlaps';
import { retryingTransaction } from './retrying-transaction';

/**
 * The one door to storage. Every method forks a fresh EntityManager, so nothing read here is
 * served from a cache another process (the daemon, `aq`) may have made stale.
 */
export class Database {
  readonly projects: ProjectRepository;
  readonly tasks: TaskRepository;
  readonly events: EventRepository;
  readonly state: SystemStateRepository;
  readonly statusSummary: StatusSummaryRepository;
  readonly hooks: HookRepository;
  readonly hookRuns: HookRunRepository;
  readonly chatThreads: ChatThreadRepository;
  readonly processedEvents: ProcessedEventRepository;
  readonly taskThreads: TaskThreadRepository;
  readonly taskRooms: TaskRoomRepository;
  readonly taskSourceThreads: TaskSourceThreadRepository;
  readonly agents: AgentRepository;
  readonly taskResults: TaskResultRepository;
  readonly tokenUsage: TokenUsageRepository;
  readonly repos: RepoRepository;
  readonly workspaces: WorkspaceRepository;
  readonly scheduling: SchedulingRepository;
  readonly taskRuns: TaskRunRepository;
  readonly planChains: PlanChainRepository;
  readonly budgets: BudgetRepository;
  readonly taskMessages: TaskMessageRepository;
  readonly steerers: ProjectSteererRepository;
  readonly agentRequests: AgentRequestRepository;
  readonly toolPolicies: ToolPolicyRepository;
  readonly runRecords: RunRecordRepository;
  readonly workers: WorkerRepository;
  readonly restartRequests: RestartRequestRepository;
  readonly reconciliation: ReconciliationRepository;
  readonly automations: AutomationRepository;
  readonly touchedFiles: TouchedFileRepository;
  readonly overlaps: TaskOverlapRepository;
  readonly mergeTrain: MergeTrainRepository;

  readonly dialect: SqlDialect;

  private constructor(readonly orm: AnyMikroORM) {
    this.dialect = dialectOf(orm.em);
    const fork = () => this.em();
    this.projects = new ProjectRepository(fork);
    this.tasks = new TaskRepository(fork);
    this.events = new EventRepository(fork);
    this.state = new SystemStateRepository(fork);
    this.statusSummary = new StatusSummaryRepository(fork);
    this.hooks = new HookRepository(fork);
    this.hookRuns = new HookRunRepository(fork);
    this.chatThreads = new ChatThreadRepository(fork);
    this.processedEvents = new ProcessedEventRepository(fork);
    this.taskThreads = new TaskThreadRepository(fork);
    this.taskRooms = new TaskRoomRepository(fork);
    this.taskSourceThreads = new TaskSourceThreadRepository(fork);
    this.agents = new AgentRepository(fork);
    this.taskResults = new TaskResultRepository(fork);
    this.tokenUsage = new TokenUsageRepository(fork);
    this.repos = new RepoRepository(fork);
    this.workspaces = new WorkspaceRepository(fork);
    this.scheduling = new SchedulingRepository(fork);
    this.taskRuns = new TaskRunRepository(fork);
    this.planChains = new PlanChainRepository(fork);
    this.budgets = new BudgetRepository(fork);
    this.taskMessages = new TaskMessageRepository(fork);
    this.steerers = new ProjectSteererRepository(fork);
    this.agentRequests = new AgentRequestRepository(fork);
    this.toolPolicies = new ToolPolicyRepository(fork);
    this.runRecords = new RunRecordRepository(fork);
    this.workers = new WorkerRepository(fork);
    this.restartRequests = new RestartRequestRepository(fork);
    this.reconciliation = new ReconciliationRepository(fork);
    this.automations = new AutomationRepository(fork);
    this.touchedFiles = new TouchedFileRepository(fork);
    this.overlaps = new TaskOverlapRepository(fork);
    this.mergeTrain = new MergeTrainRepository(fork);
  }

  /** Opens (and migrates) the SQLite file at a path, or the PostgreSQL database of a target or postgres:// URL. */
  static async open(location: string | DatabaseTarget, options: OpenOptions = {}): Promise<Database> {
    return new Database(await openOrm(location, options));
  }

  /** A fresh unit of work. Use it for one command or one query, then let it go. */
  em(): SqlEntityManager {
    return this.orm.em.fork() as SqlEntityManager;
  }

  /** Runs `work` in one transaction on a fresh EntityManager, retried whole when it loses a race. */
  transaction<T>(work: (em: SqlEntityManager) => Promise<T>): Promise<T> {
    return retryingTransaction(() => this.em(), work);
  }

  /**
   * Calls `onWork` when a task becomes READY or leaves a running state, through a listening
   * connection of its own. PostgreSQL only (null on SQLite, where callers poll).
   */
  async listenForWork(onWork: () => void, log: (message: string) => void): Promise<WorkNotifier | null> {
    if (this.dialect.name !== 'postgresql') return null;
    return WorkNotifier.listen(this.orm.config.get('clientUrl') as string, onWork, log);
  }

  async close(): Promise<void> {
    await this.orm.close(true);
  }
}

export type EmFactory = () => SqlEntityManager;
