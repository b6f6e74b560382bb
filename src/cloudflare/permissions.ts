// The Cloudflare API token permissions preview-gc needs, one row per resource kind (each kind's own,
// from src/kinds/) and the container applications: the one list of them. The README's token table,
// docs/config.md and action.yml's description of the token input are generated from it
// (`npm run readme`), and the credential check names a missing permission with it.
import type { KindPermission } from '../kinds/kind.ts';
import { KIND_LIST, type KindKey } from '../kinds/registry.ts';

/** A kind of resource in the slot config (`workers`, `d1`, …), or the container applications. */
export type PermissionKind = KindKey | 'containers';

export interface TokenPermission extends KindPermission {
  kind: PermissionKind;
  /** When it is needed, if not whenever the config names resources of its kind. */
  onlyWhen?: string;
}

export const TOKEN_PERMISSIONS: readonly TokenPermission[] = [
  ...KIND_LIST.map((kind) => ({ kind: kind.key, ...kind.permission })),
  {
    kind: 'containers',
    resources: 'container applications',
    dashboard: 'Workers Containers: Read',
    apiName: 'Workers Containers Read',
    use: 'lists container applications, so a class that backs a container is kept, not tombstoned',
    onlyWhen: "a slot's Worker has Durable Object classes",
  },
];

export function permissionOf(kind: PermissionKind): TokenPermission {
  const permission = TOKEN_PERMISSIONS.find((candidate) => candidate.kind === kind);
  if (permission === undefined) throw new Error(`no token permission for ${kind}`);
  return permission;
}

/** "A, B and C". */
export function listed(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}
