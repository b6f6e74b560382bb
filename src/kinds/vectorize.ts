// Vectorize indexes: the erase deletes every vector of the slot's index, keeping the index.
import { eraseVectorize } from '../cloudflare/erase-vectorize.ts';
import type { NameResolver } from '../cloudflare/resolver.ts';
import { NAME_CHARSET, nameTemplate } from '../config/name-template.ts';
import { plural } from '../report/format.ts';
import * as z from '../zod.ts';
import { defineKind, type Origin } from './kind.ts';

export interface VectorizeTemplate {
  name: string;
}
export type SlotVectorIndex = VectorizeTemplate & Origin;

/** Index names (indexes are addressed by name). */
const indexNames = (resolver: NameResolver) =>
  resolver.listing('vectorize', (account) => account.listVectorizeIndexes());

export const vectorize = defineKind({
  key: 'vectorize',
  step: 'vectorize',
  nameKey: 'name',
  noun: 'Vectorize index',
  entry: z.strictObject({ name: nameTemplate('name: app-{slot}-embeddings', NAME_CHARSET) }),
  examples: {
    '': 'vectorize: [{ name: "app-{slot}-embeddings" }]',
    '[]': '- name: app-{slot}-embeddings',
    '[].name': 'name: app-{slot}-embeddings',
  },
  template: (entry): VectorizeTemplate => entry,
  permission: {
    resources: 'Vectorize indexes',
    dashboard: 'Vectorize: Edit',
    apiName: 'Vectorize Write',
    use: "lists indexes and their vector ids; deletes every vector of a slot's index",
  },
  probe: indexNames,
  find: async (resolver, index) => ((await indexNames(resolver)).includes(index.name) ? true : undefined),
  erase: (context, index) => eraseVectorize(context, index),
  doneBefore: (details) =>
    'vectorsDeleted' in details && details.vectorsDeleted > 0
      ? `deleted ${plural(details.vectorsDeleted, 'vector')}`
      : undefined,
});
