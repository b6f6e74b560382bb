// The plans fast-check generates (and shrinks): how the two slots start, then a sequence of steps by
// pull requests, a person, the clock, two GC runners, a cleanup and three deploy jobs, each runner
// moved one stop at a time: for a runner with slots in parallel, the stop of the lane the plan picks.
import fc from 'fast-check';
import { DEPLOY_PULL_REQUESTS, type RunFault, type RunnerName } from './runner.ts';
import type { ParallelSlots, Plan, SlotStart, Step } from './world.ts';

const slotStart: fc.Arbitrary<SlotStart> = fc.constantFrom('clean', 'dirty', 'live', 'expired');
/** One slot at a time, both slots of the pool at once, and more lanes than slots. */
const parallelSlots: fc.Arbitrary<ParallelSlots> = fc.constantFrom(1, 2, 3);
const gcRunner = fc.constantFrom('github' as const, 'depot' as const);
const runner: fc.Arbitrary<RunnerName> = fc.constantFrom(
  'github' as const,
  'depot' as const,
  'cleanup' as const,
  ...DEPLOY_PULL_REQUESTS.map((pr) => `deploy-${pr}` as const),
);
/** Pull requests of the plan, and the two the start may give a slot to. */
const closedPr = fc.constantFrom(1, 2, 3, 90, 91);
const deployPr = fc.constantFrom(...DEPLOY_PULL_REQUESTS);
/** Pull requests acting on the semaphore directly (1-3). */
const pr = fc.integer({ min: 1, max: 3 });
/** Those, and the deploys' pull requests, which renew or release the lease their deploy got. */
const anyPr = fc.oneof(pr, deployPr);

const fault: fc.Arbitrary<RunFault> = fc.oneof(
  fc.record({
    side: fc.constant('semaphore' as const),
    nth: fc.integer({ min: 1, max: 8 }),
    kind: fc.constantFrom('lost' as const, 'refused' as const, 'garbled' as const),
  }),
  fc.record({
    side: fc.constant('cloudflare' as const),
    nth: fc.integer({ min: 1, max: 10 }),
    kind: fc.constantFrom('refused' as const, 'malformed' as const),
  }),
);

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('pr-acquire' as const), pr }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('pr-renew' as const), pr: anyPr }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('pr-release' as const), pr: anyPr }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('force' as const),
      slot: fc.constantFrom(0 as const, 1 as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('person-release' as const) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      by: fc.constantFrom(
        'seconds' as const,
        'past-pr-lease' as const,
        'past-gc-lease' as const,
        'past-deploy-lease' as const,
      ),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('gc-start' as const),
      runner: gcRunner,
      dryRun: fc.oneof(
        { weight: 3, arbitrary: fc.constant(false) },
        { weight: 1, arbitrary: fc.constant(true) },
      ),
      fault: fc.option(fault, { freq: 2 }),
      parallelSlots,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('cleanup-start' as const),
      pr: closedPr,
      change: fc.constantFrom(
        'none' as const,
        'person-forces' as const,
        'pr-hands-over' as const,
        'pr-renews' as const,
      ),
      parallelSlots,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('deploy' as const),
      pr: deployPr,
      fault: fc.option(fault, { freq: 3 }),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('gc-step' as const),
      runner,
      times: fc.integer({ min: 1, max: 3 }),
      /** Which stopped call goes on (modulo those stopped); shrinks to the first. */
      lane: fc.integer({ min: 0, max: 2 }),
    }),
  },
);

/** Either slot on its own, or both alike: two slots for gc (or a closed pull request's cleanup) at once. */
const start: fc.Arbitrary<Plan['start']> = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(slotStart, slotStart) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('dirty' as const, 'live' as const, 'expired' as const)
      .map((state): Plan['start'] => [state, state]),
  },
);

export const planArbitrary: fc.Arbitrary<Plan> = fc.record({
  start,
  holders: fc.oneof(
    { weight: 2, arbitrary: fc.constant('one-each' as const) },
    { weight: 1, arbitrary: fc.constant('one-for-both' as const) },
  ),
  names: fc.oneof(
    { weight: 4, arbitrary: fc.constant('own' as const) },
    { weight: 1, arbitrary: fc.constant('shared' as const) },
  ),
  steps: fc.array(step, { minLength: 2, maxLength: 14 }),
});
