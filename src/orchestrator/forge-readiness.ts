import type { Database } from '../db/database';
import type { Forges, ForgesReadiness } from '../git/forges/choose';
import { errorMessage } from '../util/error-message';

export const FORGE_READINESS_KEY = 'forge_readiness';

export type StoredForgeReadiness = ForgesReadiness & { checked_at: string };

/** What get_status says before any daemon has asked gh and glab. */
export const UNKNOWN_FORGE_READINESS = { github: 'unknown', gitlab: 'unknown' } as const;

/**
 * Asks gh and glab whether they are installed and logged in, off the daemon's cycle, and stores
 * the answer: `auth status` may wait on the network for seconds, so get_status in any process
 * reads the stored answer instead of asking.
 */
export class ForgeReadinessRecorder {
  private running: Promise<void> | null = null;
  private stored: Promise<ForgesReadiness> | null = null;

  constructor(
    private readonly forges: Forges,
    private readonly db: Database,
    private readonly log: (message: string) => void,
  ) {}

  /** Starts a check unless one is under way; the forges' own cache decides when to ask again. */
  tick(): void {
    if (this.running) return;
    this.running = this.refresh().finally(() => {
      this.running = null;
    });
  }

  /** Checks (or reuses the forges' cached answer) and stores it when it is a new answer. */
  async refresh(): Promise<void> {
    const answer = this.forges.readiness();
    if (answer === this.stored) return;
    try {
      const readiness = await answer;
      await this.db.state.set(FORGE_READINESS_KEY, { ...readiness, checked_at: new Date().toISOString() } satisfies StoredForgeReadiness);
      this.stored = answer;
    } catch (err) {
      this.log(`Could not record whether gh and glab are ready: ${errorMessage(err)}`);
    }
  }

  /** Resolves when no check is under way (shutdown). */
  async idle(): Promise<void> {
    await this.running;
  }
}
