// D1 databases: the erase deletes every row (erase: rows, the default) or drops every table
// (erase: drop) of the slot's database, keeping the database and its id.
import { defineKind } from '../kind.ts';
import { type D1Template, d1Entry } from './config.ts';
import { d1Wrangler } from './wrangler.ts';

export const d1 = defineKind({
  key: 'd1',
  step: 'd1',
  nameKey: 'name',
  noun: 'D1 database',
  entry: d1Entry,
  examples: {
    '': 'd1: [{ name: "app-{slot}-db", erase: rows }]',
    '[]': '- name: app-{slot}-db',
    '[].name': 'name: app-{slot}-db',
    '[].erase': 'erase: rows',
    '[].bound-by': 'bound-by: wrangler-config',
  },
  template: (entry): D1Template => entry,
  provisionUse: "creates a slot's missing database",
  permission: {
    resources: 'D1 databases',
    dashboard: 'D1: Edit',
    apiName: 'D1 Write',
    use: "lists databases; deletes the rows of a slot's database (with erase: recreate, deletes the database and creates it again)",
  },
  wrangler: d1Wrangler,
});
