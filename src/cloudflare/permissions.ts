// The Cloudflare API token permissions preview-gc needs, one row per resource kind: the one list of
// them. The README's token table, docs/config.md and action.yml's description of the token input are
// generated from it (`npm run readme`), and the credential check names a missing permission with it.

/** A kind of resource in the slot config (`workers`, `d1`, `kv`, `r2`), or the container applications. */
export type PermissionKind = 'workers' | 'd1' | 'kv' | 'r2' | 'queues' | 'vectorize' | 'containers';

export interface TokenPermission {
  kind: PermissionKind;
  /** What the resources are called in a sentence: "D1 databases". */
  resources: string;
  /** As the dashboard offers it when a token is created: "D1: Edit". */
  dashboard: string;
  /** The permission group's name in the API and its docs' "Accepted Permissions": "D1 Write". */
  apiName: string;
  /** What preview-gc does with it. */
  use: string;
  /** When it is needed, if not whenever the config names resources of its kind. */
  onlyWhen?: string;
}

export const TOKEN_PERMISSIONS: readonly TokenPermission[] = [
  {
    kind: 'workers',
    resources: 'Workers',
    dashboard: 'Workers Scripts: Edit',
    apiName: 'Workers Scripts Write',
    use: "lists Workers and their Durable Object namespaces; uploads the parked Worker over a slot's Worker",
  },
  {
    kind: 'd1',
    resources: 'D1 databases',
    dashboard: 'D1: Edit',
    apiName: 'D1 Write',
    use: "lists databases; deletes the rows of a slot's database",
  },
  {
    kind: 'kv',
    resources: 'KV namespaces',
    dashboard: 'Workers KV Storage: Edit',
    apiName: 'Workers KV Storage Write',
    use: 'lists namespaces and keys; bulk-deletes keys',
  },
  {
    kind: 'r2',
    resources: 'R2 buckets',
    dashboard: 'Workers R2 Storage: Edit',
    apiName: 'Workers R2 Storage Write',
    use: 'lists buckets; reads and writes their lifecycle rules',
  },
  {
    kind: 'queues',
    resources: 'queues',
    dashboard: 'Queues: Edit',
    apiName: 'Queues Write',
    use: "lists queues; purges every message of a slot's queue and reads the purge's status",
  },
  {
    kind: 'vectorize',
    resources: 'Vectorize indexes',
    dashboard: 'Vectorize: Edit',
    apiName: 'Vectorize Write',
    use: "lists indexes and their vector ids; deletes every vector of a slot's index",
  },
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
