// `GET /metrics`: the pools as Prometheus reads them, in its text exposition format (version 0.0.4).
// Names follow Prometheus' conventions: the `preview_gc_` prefix, the unit in the name (`_usd`,
// `_seconds`), base units, no `_total` on a gauge. Every slot is in exactly one state, so the states of
// a pool add up to its slots. Label values (a holder is a pull request's string) are escaped as the
// format says: backslash, double quote and newline.
import type { PoolQueue, Slot } from '../protocol.ts';

/** A slot "needs repair" after this many failed erases in a row (src/report/model.ts says the same). */
const NEEDS_REPAIR_AFTER_FAILURES = 2;

export const METRICS_ROUTE = '/metrics';
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** The states a slot is counted in, one each, in the order they are decided. */
export const SLOT_STATES = [
  'needs_repair',
  'expired',
  'parked',
  'leased',
  'free_dirty',
  'free_clean',
] as const;
export type SlotState = (typeof SLOT_STATES)[number];

export interface PoolSlots {
  type: string;
  slots: readonly Slot[];
  /** The pool's fair queue as its listing gave it, and the listing's time (server clock). */
  queue: PoolQueue;
  now: number;
}

/** The one state a slot is counted in. */
export function slotStateOf(
  slot: Pick<Slot, 'leaseState' | 'expired' | 'dirty' | 'eraseFailures' | 'activity'>,
): SlotState {
  if (slot.leaseState === 'leased' && !slot.expired)
    return slot.activity?.parkedForSpend === undefined ? 'leased' : 'parked';
  if (slot.eraseFailures >= NEEDS_REPAIR_AFTER_FAILURES) return 'needs_repair';
  if (slot.leaseState === 'leased') return 'expired';
  return slot.dirty ? 'free_dirty' : 'free_clean';
}

const escapeLabel = (value: string) =>
  value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

function sample(name: string, labels: Record<string, string>, value: number): string {
  const pairs = Object.entries(labels).map(([key, label]) => `${key}="${escapeLabel(label)}"`);
  return `${name}{${pairs.join(',')}} ${Number.isFinite(value) ? value : 0}`;
}

interface Family {
  name: string;
  help: string;
  samples: string[];
}

function families(pools: readonly PoolSlots[]): Family[] {
  const slots: string[] = [];
  const leases: string[] = [];
  const failures: string[] = [];
  const lastRecord: string[] = [];
  const cost: string[] = [];
  const missing: string[] = [];
  const waiters: string[] = [];
  const oldestWait: string[] = [];
  for (const { type, slots: poolSlots, queue, now } of pools) {
    waiters.push(sample('preview_gc_queue_waiters', { pool: type }, queue.length));
    const first = queue.waiters[0];
    oldestWait.push(
      sample(
        'preview_gc_queue_oldest_wait_seconds',
        { pool: type },
        first === undefined ? 0 : (now - first.waitingSince) / 1000,
      ),
    );
    const counts = new Map<SlotState, number>(SLOT_STATES.map((state) => [state, 0]));
    for (const slot of poolSlots) counts.set(slotStateOf(slot), (counts.get(slotStateOf(slot)) ?? 0) + 1);
    for (const state of SLOT_STATES)
      slots.push(sample('preview_gc_slots', { pool: type, state }, counts.get(state) ?? 0));
    const live = poolSlots.filter((slot) => slot.leaseState === 'leased' && !slot.expired);
    leases.push(sample('preview_gc_leases', { pool: type }, live.length));
    for (const slot of poolSlots)
      failures.push(
        sample('preview_gc_slot_erase_failures', { pool: type, slot: slot.slug }, slot.eraseFailures),
      );
    const recorded = Math.max(0, ...poolSlots.map((slot) => slot.activity?.at ?? 0));
    if (recorded > 0)
      lastRecord.push(
        sample('preview_gc_last_spend_read_timestamp_seconds', { pool: type }, recorded / 1000),
      );
    for (const slot of live) {
      const leaseCost = slot.activity?.leaseCost;
      if (leaseCost === undefined) continue;
      const labels = { pool: type, slot: slot.slug, holder: slot.holder ?? '' };
      cost.push(sample('preview_gc_lease_cost_usd', labels, leaseCost.usd));
      missing.push(sample('preview_gc_lease_cost_missing_seconds', labels, leaseCost.missingMs / 1000));
    }
  }
  return [
    { name: 'preview_gc_slots', help: 'Slots per pool and state (each slot in one state).', samples: slots },
    { name: 'preview_gc_leases', help: 'Live leases per pool (parked ones included).', samples: leases },
    {
      name: 'preview_gc_slot_erase_failures',
      help: 'Failed erases in a row of each slot; 2 or more: the slot needs repair.',
      samples: failures,
    },
    {
      name: 'preview_gc_last_spend_read_timestamp_seconds',
      help: "When gc last kept a spend read of the pool's slots (Unix time).",
      samples: lastRecord,
    },
    {
      name: 'preview_gc_lease_cost_usd',
      help: "What each live lease cost so far, from gc's reads (US dollars).",
      samples: cost,
    },
    {
      name: 'preview_gc_lease_cost_missing_seconds',
      help: 'Time of each live lease no spend read covered: its cost so far leaves it out.',
      samples: missing,
    },
    {
      name: 'preview_gc_queue_waiters',
      help: "Waiters in each pool's queue for a slot (first come, first served).",
      samples: waiters,
    },
    {
      name: 'preview_gc_queue_oldest_wait_seconds',
      help: "How long the first of each pool's queue has waited (0 when nobody waits).",
      samples: oldestWait,
    },
  ];
}

/** The exposition: a HELP and TYPE line before each family's samples (every family a gauge). */
export function renderMetrics(pools: readonly PoolSlots[]): string {
  const lines = families(pools).flatMap((family) => [
    `# HELP ${family.name} ${family.help}`,
    `# TYPE ${family.name} gauge`,
    ...family.samples,
  ]);
  return `${lines.join('\n')}\n`;
}
