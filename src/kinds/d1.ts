// D1 databases: the erase deletes every row (erase: rows, the default) or drops every table
// (erase: drop) of the slot's database, keeping the database and its id.
import { eraseD1 } from '../cloudflare/erase-d1.ts';
import type { NameResolver } from '../cloudflare/resolver.ts';
import { NAME_CHARSET, nameTemplate } from '../config/name-template.ts';
import * as z from '../zod.ts';
import { defineKind, type Origin } from './kind.ts';

export interface D1Template {
  name: string;
  erase: 'rows' | 'drop';
}
export type SlotD1 = D1Template & Origin;

const databases = (resolver: NameResolver) => resolver.listing('d1', (account) => account.listD1Databases());

export const d1 = defineKind({
  key: 'd1',
  step: 'd1',
  nameKey: 'name',
  noun: 'D1 database',
  entry: z.strictObject({
    name: nameTemplate('name: app-{slot}-db', NAME_CHARSET),
    erase: z.enum(['rows', 'drop']).default('rows'),
  }),
  examples: {
    '': 'd1: [{ name: "app-{slot}-db", erase: rows }]',
    '[]': '- name: app-{slot}-db',
    '[].name': 'name: app-{slot}-db',
    '[].erase': 'erase: rows',
  },
  template: (entry): D1Template => entry,
  permission: {
    resources: 'D1 databases',
    dashboard: 'D1: Edit',
    apiName: 'D1 Write',
    use: "lists databases; deletes the rows of a slot's database",
  },
  probe: databases,
  /** The database's uuid. */
  find: async (resolver, database) =>
    (await databases(resolver)).find((candidate) => candidate.name === database.name)?.uuid,
  erase: eraseD1,
});
