import { randomUUID } from 'node:crypto';
import type { AnyCommand } from '../commands/catalog';
import type { Database } from '../db/database';
import type { PendingConfirmation } from './service';
import { shorten } from '../util/whole-characters';

/** A confirmation older than this answers "expired" instead of running a stale request. */
export const CONFIRMATION_TTL_MS = 24 * 60 * 60 * 1000;

/** What is stored for a pending confirmation: enough to run it and to resume the conversation. */
export interface StoredConfirmation extends PendingConfirmation {
  conversationId: string;
  projectId: string | null;
  createdAt: string;
}

function showValue(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return shorten(text, 80, '...');
}

/** One sentence for the Confirm / Cancel message, e.g. "Run delete_project with project_id=demo." */
export function confirmationSummary(command: string, args: Record<string, unknown>): string {
  const shown = Object.entries(args)
    .filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([k, v]) => `${k}=${showValue(v)}`);
  return `Run ${command}${shown.length ? ` with ${shown.join(', ')}` : ''}.`;
}

/**
 * A held call of a destructive or admin command is the model's idea, maybe planted by text it
 * read: only an admin's click may let it run. Other held calls (message_task, answers to agents)
 * may be confirmed by anyone the command itself allows.
 */
export function onlyAdminsConfirm(command: Pick<AnyCommand, 'kind'>): boolean {
  return command.kind === 'destructive' || command.kind === 'admin';
}

export function newConfirmation(command: string, args: Record<string, unknown>): PendingConfirmation {
  return { id: randomUUID(), command, args, summary: confirmationSummary(command, args) };
}

/** Pending confirmations in SQLite, so a restart between the question and the click keeps them. */
export class ConfirmationStore {
  constructor(
    private readonly db: Database,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async save(confirmation: PendingConfirmation, conversationId: string, projectId: string | null): Promise<void> {
    const stored: StoredConfirmation = { ...confirmation, conversationId, projectId, createdAt: this.now().toISOString() };
    await this.db.chatThreads.savePending(confirmation.id, stored);
  }

  /** The confirmation, left in place; null when unknown, already taken, or expired. */
  async peek(id: string): Promise<StoredConfirmation | null> {
    if (!id) return null;
    const stored = await this.db.chatThreads.peekPending<StoredConfirmation>(id);
    return stored && !this.expired(stored) ? stored : null;
  }

  /** Removes and returns the confirmation; null when unknown, already taken, or expired. */
  async take(id: string): Promise<StoredConfirmation | null> {
    if (!id) return null;
    const stored = await this.db.chatThreads.takePending<StoredConfirmation>(id);
    return stored && !this.expired(stored) ? stored : null;
  }

  private expired(stored: StoredConfirmation): boolean {
    const age = this.now().getTime() - Date.parse(stored.createdAt);
    return Number.isFinite(age) && age > CONFIRMATION_TTL_MS;
  }
}
