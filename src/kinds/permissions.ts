// The Cloudflare API token permissions preview-gc needs, one row per resource kind and one per
// conditional permission a kind declares (the Workers' container applications): the one list of
// them. The README's token table, docs/config.md and action.yml's description of the token input are
// generated from it (`npm run readme`), and the credential check names a missing permission with it.
import type { KindPermission } from './kind.ts';
import { KIND_LIST } from './registry.ts';

export interface TokenPermission extends KindPermission {
  /** A kind's key (`workers`, `d1`, …), the name of a kind's conditional permission (`containers`), or `analytics`. */
  kind: string;
  /** When it is needed, if not whenever the config names resources of its kind. */
  onlyWhen?: string;
  /** An optional permission: what it is only for, the rest works without it. */
  onlyFor?: string;
}

/**
 * The spend read (src/spend/): what each slot's compute spent in the last hour. Optional: without
 * it each gc run warns once and shows no spend, and everything else works.
 */
export const ANALYTICS_PERMISSION: TokenPermission = {
  kind: 'analytics',
  resources: 'account analytics',
  dashboard: 'Account Analytics: Read',
  apiName: 'Account Analytics Read',
  use: "one GraphQL Analytics query a run: each slot's requests, alarms and Durable Object time over the last hour, for the spend columns and the alert about a live lease; without it a run warns once and shows no spend",
  onlyFor: 'the spend read',
};

/**
 * Every kind's own permission, then the conditional ones, then the optional one (the table reads
 * "always" before "only when" before "optional").
 */
export const TOKEN_PERMISSIONS: readonly TokenPermission[] = [
  ...KIND_LIST.map((kind) => ({ kind: kind.key, ...kind.permission })),
  ...KIND_LIST.flatMap((kind) => kind.conditionalPermissions ?? []),
  ANALYTICS_PERMISSION,
];

export function permissionOf(kind: string): TokenPermission {
  const permission = TOKEN_PERMISSIONS.find((candidate) => candidate.kind === kind);
  if (permission === undefined) throw new Error(`no token permission for ${kind}`);
  return permission;
}

/**
 * What `preview-gc slots provision` does with the same permissions, kind by kind: an optional set,
 * for a person adopting slots (gc, cleanup and acquire never create anything).
 */
export const PROVISION_PERMISSIONS: readonly TokenPermission[] = KIND_LIST.map((kind) => ({
  kind: kind.key,
  ...kind.permission,
  use: kind.provisionUse,
}));
