// Vectorize indexes: the erase deletes every vector of the slot's index, keeping the index.
import { defineKind } from '../kind.ts';
import { type VectorizeTemplate, vectorizeEntry } from './config.ts';
import { vectorizeWrangler } from './wrangler.ts';

export const vectorize = defineKind({
  key: 'vectorize',
  step: 'vectorize',
  nameKey: 'name',
  noun: 'Vectorize index',
  entry: vectorizeEntry,
  examples: {
    '': 'vectorize: [{ name: "app-{slot}-embeddings" }]',
    '[]': '- name: app-{slot}-embeddings',
    '[].name': 'name: app-{slot}-embeddings',
  },
  template: (entry): VectorizeTemplate => entry,
  provisionUse: "creates a slot's missing index with the config's dimensions and metric",
  permission: {
    resources: 'Vectorize indexes',
    dashboard: 'Vectorize: Edit',
    apiName: 'Vectorize Write',
    use: "lists indexes and their vector ids; deletes every vector of a slot's index",
  },
  wrangler: vectorizeWrangler,
});
