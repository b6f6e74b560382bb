// `erase: recreate` (D1 and KV): the store is deleted and created again under the same name, empty by
// construction and a few requests whatever its size. Its id changes, so the slot config must say how
// the deploy finds the new one (`bound-by`), and the run's listing of the kind is amended, so the
// kind's inventory reads the new store and acquire hands its deploy the new id. Each kind's
// `recreate.ts` says how its store is deleted and created.
import { CloudflareCallError } from '../cloudflare/call-error.ts';
import * as z from '../zod.ts';
import { type EraseContext, StepError, type StepOutcome } from './step.ts';

/** How the deploy binds a store that `erase: recreate` gives a new id at every erase. */
export const boundByKey = z.enum(['wrangler-config', 'name']).optional();

/** Refuses `erase: recreate` without `bound-by`: a deploy that kept the old id would bind nothing. */
export function recreateNeedsBoundBy(noun: string, example: string) {
  return (entry: { erase?: string | undefined; 'bound-by'?: string | undefined }, ctx: z.RefinementCtx) => {
    if (entry.erase !== 'recreate' || entry['bound-by'] !== undefined) return;
    ctx.addIssue({
      code: 'custom',
      path: ['erase'],
      message: `recreate gives the ${noun} a new id at every erase, so a deploy that kept the old id would bind nothing; say how the deploy binds it: bound-by: wrangler-config (the deploy uses the wrangler config acquire writes, its wrangler-config output) or bound-by: name (the deploy finds it by its name), e.g. ${example}`,
    });
  };
}

export interface RecreateDetails {
  /** The store's id before and after. */
  oldId: string;
  newId?: string;
}

/**
 * Deletes the store `oldId` and creates it again; `amend` tells the run's listing the new id. A
 * delete whose create then fails leaves no store: the step fails saying so, and the next erase's
 * lookup reports it missing (preview-gc slots provision creates it again).
 */
export async function recreateStore(
  context: EraseContext,
  store: { noun: string; name: string; oldId: string },
  calls: {
    remove: () => Promise<void>;
    create: () => Promise<string>;
    amend: (newId: string) => void;
  },
): Promise<StepOutcome<RecreateDetails>> {
  const details: RecreateDetails = { oldId: store.oldId };
  if (context.dryRun)
    return {
      status: 'would-change',
      summary: `would delete the ${store.noun} and create it again (its id changes)`,
      details,
    };
  await calls.remove();
  try {
    details.newId = await calls.create();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new StepError(
      error instanceof CloudflareCallError ? error.reason : 'internal',
      `the ${store.noun} '${store.name}' was deleted but not created again (${message}); preview-gc slots provision creates it`,
      details,
    );
  }
  calls.amend(details.newId);
  return {
    status: 'done',
    summary: `deleted and created again, empty (new id ${details.newId})`,
    details,
  };
}
