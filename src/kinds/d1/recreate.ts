// `erase: recreate` of a D1 database: delete it and create it again under the same name (see
// src/kinds/recreate.ts); the run's D1 listing gets the new uuid.
import { type RecreateDetails, recreateStore } from '../recreate.ts';
import type { EraseContext, StepOutcome } from '../step.ts';
import { createD1Database, deleteD1Database } from './api.ts';
import type { SlotD1 } from './config.ts';

export function recreateD1(
  context: EraseContext,
  database: SlotD1,
  uuid: string,
  listingKey: string,
): Promise<StepOutcome<RecreateDetails>> {
  return recreateStore(
    context,
    { noun: 'D1 database', name: database.name, oldId: uuid },
    {
      remove: () => deleteD1Database(context.api, uuid),
      create: () => createD1Database(context.api, database.name),
      amend: (newId) =>
        context.resolver.amend<{ uuid: string; name: string }[]>(listingKey, (databases) =>
          databases.map((entry) => (entry.uuid === uuid ? { ...entry, uuid: newId } : entry)),
        ),
    },
  );
}
