// A slot's generation is a fencing token: it never repeats for a slug, across delete and re-add and
// across a restart of a persisted semaphore. Against the real Worker in workerd.
import { describe, expect, it } from 'vitest';
import type { SemaphoreClient } from '../../src/semaphore/client.ts';
import { acrossRestart, freshPool, removeAsItIs, semaphoreForFile } from './helpers.ts';

const local = semaphoreForFile();

const HOUR = 3_600_000;

/** Acquires and releases the slot once; answers the generation of that lease. */
async function cycle(client: SemaphoreClient, type: string, slug: string): Promise<number> {
  const lease = await client.acquireSpecific({ type, slug, holder: 'pr-1', leaseMs: HOUR });
  if (lease === null) throw new Error(`could not take ${slug}`);
  await client.release({ type, slug, leaseId: lease.leaseId });
  return lease.generation;
}

describe('generations', () => {
  it('continue from the highest generation when a slug is deleted and added again', async () => {
    const { client } = local;
    const type = freshPool('generations');
    await client.add({ type, slug: 'preview-1' });
    expect([await cycle(client, type, 'preview-1'), await cycle(client, type, 'preview-1')]).toEqual([1, 2]);
    await removeAsItIs(client, type, 'preview-1');
    expect(await client.add({ type, slug: 'preview-1' })).toMatchObject({ generation: 2 });
    expect(await cycle(client, type, 'preview-1')).toBe(3);
    // Another pool's slot of the same slug has its own count.
    const other = freshPool('generations');
    expect(await client.add({ type: other, slug: 'preview-1' })).toMatchObject({ generation: 0 });
  });

  it('continue after a persisted semaphore restarts', async () => {
    const type = 'restarted';
    await acrossRestart(
      async (client) => {
        await client.add({ type, slug: 'preview-1' });
        expect(await cycle(client, type, 'preview-1')).toBe(1);
        await removeAsItIs(client, type, 'preview-1');
      },
      async (client) => {
        expect(await client.add({ type, slug: 'preview-1' })).toMatchObject({ generation: 1 });
        expect(await cycle(client, type, 'preview-1')).toBe(2);
      },
    );
  });
});
