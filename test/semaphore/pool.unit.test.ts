// The pool rules (worker/pool.ts) over a node:sqlite store, without workerd: each command runs in a
// transaction as the Durable Object runs it, on a clock the test sets.
import { describe, expect, it } from 'vitest';
import { type PoolCommand, type PoolOutcome, runCommand } from '../../src/semaphore/worker/pool.ts';
import { migrate, POOL_MIGRATIONS } from '../../src/semaphore/worker/schema.ts';
import {
  DELETED_SLUGS_WITH_EVENTS,
  EVENTS_KEPT_PER_SLOT,
  PoolStore,
} from '../../src/semaphore/worker/store.ts';
import { openTestDatabase } from './sqlite-database.ts';

const T0 = 1_784_000_000_000;
const TYPE = 'pool';

/** A migrated in-memory pool; `run` runs one command in a transaction at `now`. */
function openPool() {
  const db = openTestDatabase();
  db.transaction(() => migrate(db, POOL_MIGRATIONS));
  const store = new PoolStore(db);
  const run = (command: PoolCommand, now = T0): PoolOutcome =>
    db.transaction(() => runCommand(store, command, now));
  return { db, store, run };
}

const add = (slug: string) => ({ op: 'add', request: { type: TYPE, slug } }) as const;
const remove = (slug: string) => ({ op: 'remove', type: TYPE, slug }) as const;

describe('event log bounds', () => {
  it(`keeps the newest ${EVENTS_KEPT_PER_SLOT} events of a slug`, () => {
    const { run, store } = openPool();
    run(add('preview-1'));
    for (let round = 0; round < EVENTS_KEPT_PER_SLOT; round += 1) {
      run({ op: 'mark-dirty', request: { type: TYPE, slug: 'preview-1', note: `round ${round}` } });
    }
    const events = store.events('preview-1', EVENTS_KEPT_PER_SLOT + 10);
    expect(events).toHaveLength(EVENTS_KEPT_PER_SLOT);
    expect(events[0]?.detail).toMatchObject({ note: `round ${EVENTS_KEPT_PER_SLOT - 1}` });
    expect(events.at(-1)?.detail).toMatchObject({ note: 'round 0' });
  });

  it(`keeps the events of the ${DELETED_SLUGS_WITH_EVENTS} most recently deleted slugs, and every live slot's`, () => {
    const { run, store } = openPool();
    run(add('live-1'));
    const deleted = Array.from({ length: DELETED_SLUGS_WITH_EVENTS + 5 }, (_, index) => `gone-${index}`);
    for (const slug of deleted) {
      run(add(slug));
      run(remove(slug));
    }
    const kept = deleted.filter((slug) => store.events(slug, 10).length > 0);
    expect(kept).toEqual(deleted.slice(5));
    expect(store.events('gone-5', 10).map((event) => event.event)).toEqual(['deleted', 'added']);
    expect(store.events('live-1', 10).map((event) => event.event)).toEqual(['added']);
  });
});
