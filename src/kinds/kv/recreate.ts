// `erase: recreate` of a KV namespace: delete it and create it again under the same title (see
// src/kinds/recreate.ts); the run's KV listing gets the new id.
import { type RecreateDetails, recreateStore } from '../recreate.ts';
import type { EraseContext, StepOutcome } from '../step.ts';
import { createKvNamespace, deleteKvNamespace } from './api.ts';
import type { SlotKv } from './config.ts';

export function recreateKv(
  context: EraseContext,
  namespace: SlotKv,
  namespaceId: string,
  listingKey: string,
): Promise<StepOutcome<RecreateDetails>> {
  return recreateStore(
    context,
    { noun: 'KV namespace', name: namespace.title, oldId: namespaceId },
    {
      remove: () => deleteKvNamespace(context.api, namespaceId),
      create: () => createKvNamespace(context.api, namespace.title),
      amend: (newId) =>
        context.resolver.amend<{ id: string; title: string }[]>(listingKey, (namespaces) =>
          namespaces.map((entry) => (entry.id === namespaceId ? { ...entry, id: newId } : entry)),
        ),
    },
  );
}
