/**
 * What a sync run lists (docs/hrms/connectors.md "Full and incremental syncs"): full or
 * incremental, and since when. Used by the sync service before each run and by the connection
 * freshness answer (the kind a sync queued now would run).
 */
import type { SyncKind } from '../db/entities';
import type { HrmsConnectorDefinition } from '../hrms/connector';
import type { SyncTrigger } from './queue';

/** A full sync runs at least this often, ms (docs/hrms/connectors.md "Full and incremental syncs"). */
export const FULL_SYNC_EVERY_MS = 24 * 3_600_000;
/** An incremental sync lists changes since the previous run's start minus this, ms (clock skew between hrx and the HRMS). */
export const INCREMENTAL_OVERLAP_MS = 5 * 60_000;

/**
 * What the next run lists (docs/hrms/connectors.md "Full and incremental syncs"): incremental (changes since the previous succeeded
 * run's start, less the overlap) only when the product can list changes, the org's job scheduler
 * or a vendor's sync on demand queued it, and a full run succeeded within the last day; otherwise
 * full. `setup` (and every other trigger) is always full.
 */
export function planRun(
  definition: Pick<HrmsConnectorDefinition, 'incremental'>,
  trigger: SyncTrigger,
  last: { any: Date | null; full: Date | null },
  now: number,
): { kind: SyncKind; since?: Date } {
  if (!definition.incremental || (trigger !== 'schedule' && trigger !== 'vendor') || !last.full || !last.any) return { kind: 'full' };
  if (now - last.full.getTime() >= FULL_SYNC_EVERY_MS) return { kind: 'full' };
  return { kind: 'incremental', since: new Date(last.any.getTime() - INCREMENTAL_OVERLAP_MS) };
}
