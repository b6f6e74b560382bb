// Model-based test: fast-check plans interleavings of pull requests acquiring, renewing and releasing,
// the deploy jobs of three more pull requests (the action's acquire), a person forcing a slot, two GC
// runners at once (GitHub's and Depot's), a closed pull request's cleanup (the slot changing hands,
// or its lease renewed, between each read and its force), GC and cleanup erasing one to three slots at once (parallel-slots), every
// runner stopped before each semaphore call and each destructive Cloudflare call (each slot in flight
// stopped on its own, the plan picking which goes on), clock jumps (the semaphore's test clock) and
// faults, against the real semaphore and the Cloudflare twin, over slots with their own resource names
// or shared ones. Invariants: no erase under someone else's lease, one owner per resource name, a force
// releases only the lease it read (not one renewed since), every gc lease ends released (or, its answer lost, runs out and the
// run says so), a deploy gets a slot with no one else's data in it and keeps no lease when it hands
// nothing over, clean only after a complete erase, dry run changes nothing, reports and exit codes tell
// the truth.
// PREVIEW_GC_MODEL_RUNS (default 200) sets the number of runs, PREVIEW_GC_MODEL_SEED replays one.
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSlotConfig } from '../../src/config/slot-config.ts';
import { SemaphoreClient } from '../../src/semaphore/client.ts';
import { startLocalSemaphore } from '../../src/semaphore/local.ts';
import { planArbitrary } from './model/plan.ts';
import { coverage, type ModelEnv, type Plan, World } from './model/world.ts';

const SEMAPHORE_TOKEN = 'sem-model-2f8c41d7e9';
const CLOUDFLARE_TOKEN = 'cf-model-7a3e95b0c6';
const CONFIG_PATH = fileURLToPath(new URL('./fixtures/small-slots.yml', import.meta.url));
const SHARED_CONFIG_PATH = fileURLToPath(new URL('./fixtures/small-shared.yml', import.meta.url));
const RUNS = Number(process.env.PREVIEW_GC_MODEL_RUNS ?? 200);
const SEED =
  process.env.PREVIEW_GC_MODEL_SEED === undefined ? Date.now() : Number(process.env.PREVIEW_GC_MODEL_SEED);
/** Independent lanes (own pools, own twins) run at once; each gets its share of the runs and its own seed. */
const LANES = Number(process.env.PREVIEW_GC_MODEL_LANES ?? 8);

let env: ModelEnv;

beforeAll(async () => {
  const semaphore = await startLocalSemaphore({ token: SEMAPHORE_TOKEN, testClock: true });
  env = {
    semaphore,
    client: new SemaphoreClient({ baseUrl: semaphore.url, token: SEMAPHORE_TOKEN }),
    configs: {
      own: { config: await loadSlotConfig(CONFIG_PATH), path: CONFIG_PATH },
      shared: { config: await loadSlotConfig(SHARED_CONFIG_PATH), path: SHARED_CONFIG_PATH },
    },
    cloudflareToken: CLOUDFLARE_TOKEN,
  };
}, 60_000);

afterAll(async () => {
  console.log(`model coverage: ${JSON.stringify(coverage, Object.keys(coverage).sort())}`);
  await env?.semaphore.stop();
});

async function lane(index: number, runs: number): Promise<void> {
  let run = 0;
  await fc.assert(
    fc.asyncProperty(planArbitrary, async (plan) => {
      run += 1;
      const world = await World.create(env, `l${index}r${run}`, plan);
      try {
        await world.play(plan);
        await world.verify();
      } finally {
        await world.close();
      }
      if (world.violations.length > 0) {
        throw new Error(`${world.violations.join('\n')}\ntrace: ${world.trace.join('; ')}`);
      }
    }),
    { numRuns: runs, seed: SEED + index, endOnFailure: false },
  );
}

describe('model: GC runners, pull requests, a person, the clock and faults on one pool', () => {
  it(`holds every invariant over ${RUNS} runs (seed ${SEED}, lanes ${LANES})`, async () => {
    const shares = Array.from(
      { length: LANES },
      (_, i) => Math.floor(RUNS / LANES) + (i < RUNS % LANES ? 1 : 0),
    );
    const failures = (await Promise.allSettled(shares.map((runs, index) => lane(index, runs))))
      .map((outcome, index) =>
        outcome.status === 'rejected'
          ? `lane ${index} (seed ${SEED + index}): ${failureOf(outcome.reason)}`
          : '',
      )
      .filter(Boolean);
    expect(failures).toEqual([]);
  }, 300_000);
});

/** fast-check's failure names the counterexample; the violations it found are in its cause. */
function failureOf(reason: unknown): string {
  const cause = reason instanceof Error ? reason.cause : undefined;
  return cause === undefined ? String(reason) : `${String(reason)}\n${String(cause)}`;
}

/** Plays one plan to its end in a world of its own; the world's violations and trace are the result. */
async function playDirected(id: string, plan: Plan): Promise<World> {
  const world = await World.create(env, id, plan);
  try {
    await world.play(plan);
    await world.verify();
  } finally {
    await world.close();
  }
  return world;
}

describe('model: directed interleavings', () => {
  // Found by this suite: a release answering `released: false` used to be reported `reclaimed`.
  it('a slot forced away between its erase and its release is not reported reclaimed', async () => {
    const world = await playDirected('forced-before-release', {
      start: ['expired', 'clean'],
      names: 'own',
      holders: 'one-each',
      steps: [
        { kind: 'gc-start', runner: 'github', dryRun: false, fault: null, parallelSlots: 3 },
        { kind: 'gc-until', runner: 'github', before: 'release' },
        { kind: 'force', slot: 0 },
      ],
    });
    expect(world.violations).toEqual([]);
  });

  // Found by an attack session: with app-{n}-db, gc erased the database of a live slot through an
  // expired one that names the same database.
  it('gc erases nothing of a live slot through an expired slot that names the same resources', async () => {
    const world = await playDirected('shared-names', {
      start: ['live', 'expired'],
      names: 'shared',
      holders: 'one-each',
      steps: [{ kind: 'gc-start', runner: 'github', dryRun: false, fault: null, parallelSlots: 3 }],
    });
    expect(world.violations).toEqual([]);
    expect(world.trace.at(-1)).toMatch(/github ended 1: shared-names-b-1 erase-failed/);
  });

  // Erase on acquire: pr-1 leaves its data behind, and the deploy of pr-11 gets a slot with someone
  // else's data in it (pr-1's, or expired pr-91's): the deploy moves in only after the erase.
  it("a deploy gets a slot that held someone else's data erased first", async () => {
    const world = await playDirected('deploy-after-release', {
      start: ['clean', 'expired'],
      names: 'own',
      holders: 'one-each',
      steps: [
        { kind: 'pr-acquire', pr: 1 },
        { kind: 'deploy', pr: 11, fault: null },
        { kind: 'pr-release', pr: 1 },
      ],
    });
    expect(world.violations).toEqual([]);
    expect(world.trace.at(-1)).toMatch(/^deploy-11 ended 0: deploy-after-release-[ab]-1 erased$/);
    expect(world.trace).toContainEqual(expect.stringMatching(/^pr-11 deployed into /));
  });

  // Found by a hostile read: a renew changed nothing a force pinned, so a force that read the lease
  // before its holder renewed it (a reopened pull request's deploy) still released it.
  it("cleanup's force releases nothing of a lease renewed between its read and its force", async () => {
    const world = await playDirected('renewed-before-force', {
      start: ['live', 'clean'],
      names: 'own',
      holders: 'one-each',
      steps: [{ kind: 'cleanup-start', pr: 90, change: 'pr-renews', parallelSlots: 1 }],
    });
    expect(world.violations).toEqual([]);
    expect(world.trace).toContain('pr-90 renewed renewed-before-force-a-1 before the force: ok');
    expect(world.trace).toContain('cleanup released renewed-before-force-a-1 by force: false');
    expect(world.trace.at(-1)).toBe('cleanup ended 0: renewed-before-force-a-1 skipped');
  });

  // Found by an attack session: cleanup read pr-7's slot, pr-8 got it, and cleanup's force evicted pr-8.
  it.each(['pr-hands-over', 'person-forces'] as const)(
    "cleanup's force releases nothing when the slot changed hands after its read (%s)",
    async (change) => {
      const world = await playDirected(`changed-hands-${change}`, {
        start: ['live', 'clean'],
        names: 'own',
        holders: 'one-each',
        steps: [{ kind: 'cleanup-start', pr: 90, change, parallelSlots: 3 }],
      });
      expect(world.violations).toEqual([]);
      expect(world.trace).toContain(`cleanup released changed-hands-${change}-a-1 by force: false`);
      expect(world.trace.at(-1)).toBe(`cleanup ended 0: changed-hands-${change}-a-1 skipped`);
    },
  );
});

describe('model: slots in parallel', () => {
  // A closed pull request held both slots; its cleanup works on both at once, and each slot changes
  // hands between cleanup's read and its force, while the other slot's lane waits mid-way.
  it.each(['pr-hands-over', 'person-forces'] as const)(
    "cleanup's forces in two lanes release nothing of the slots' new holders (%s)",
    async (change) => {
      const id = `parallel-cleanup-${change}`;
      const world = await playDirected(id, {
        start: ['live', 'live'],
        holders: 'one-for-both',
        names: 'own',
        steps: [
          { kind: 'cleanup-start', pr: 90, change, parallelSlots: 2 },
          { kind: 'gc-step', runner: 'cleanup', times: 3, lane: 1 },
        ],
      });
      expect(world.violations).toEqual([]);
      expect(world.trace).toContainEqual(expect.stringMatching(/^cleanup goes on before /));
      for (const slot of ['a', 'b'])
        expect(world.trace).toContain(`cleanup released ${id}-${slot}-1 by force: false`);
      expect(world.trace.at(-1)).toBe(`cleanup ended 0: ${id}-a-1 skipped, ${id}-b-1 skipped`);
    },
  );
});
