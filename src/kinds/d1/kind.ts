// D1 databases: the erase drops every table (erase: drop, the default) or deletes every row
// (erase: rows) of the slot's database, keeping the database and its id, or recreates it.
import { defineKind } from '../kind.ts';
import { d1Entry, d1Template } from './config.ts';
import { d1Wrangler } from './wrangler.ts';

export const d1 = defineKind({
  key: 'd1',
  step: 'd1',
  nameKey: 'name',
  noun: 'D1 database',
  entry: d1Entry,
  examples: {
    '': 'd1: [{ name: "app-{slot}-db", erase: drop }]',
    '[]': '- name: app-{slot}-db',
    '[].name': 'name: app-{slot}-db',
    '[].erase': 'erase: drop',
    '[].location-hint': 'location-hint: weur',
    '[].bound-by': 'bound-by: wrangler-config',
  },
  template: d1Template,
  provisionUse: "creates a slot's missing database",
  permission: {
    resources: 'D1 databases',
    dashboard: 'D1: Edit',
    apiName: 'D1 Write',
    use: "lists databases; deletes the rows of a slot's database (with erase: recreate, deletes the database and creates it again)",
  },
  wrangler: d1Wrangler,
});
