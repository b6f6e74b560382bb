// Which token permissions a route accepts, after the API docs' "Accepted Permissions" of each
// endpoint: a service's Read or Write group for its reads, its Write group for its changes. Account
// Details (`GET /accounts/{id}`) accepts, of the groups a preview-gc token can have, the Workers
// Scripts, KV and R2 ones, and not D1's.
const SERVICES: readonly { path: RegExp; group: string }[] = [
  { path: /^\/accounts\/:account\/workers\//, group: 'Workers Scripts' },
  { path: /^\/accounts\/:account\/d1\//, group: 'D1' },
  { path: /^\/accounts\/:account\/storage\/kv\//, group: 'Workers KV Storage' },
  { path: /^\/accounts\/:account\/r2\//, group: 'Workers R2 Storage' },
  { path: /^\/accounts\/:account\/containers\//, group: 'Workers Containers' },
];

const ACCOUNT_DETAILS = [
  'Account Settings Read',
  'Account Settings Write',
  'Workers Scripts Read',
  'Workers Scripts Write',
  'Workers KV Storage Read',
  'Workers KV Storage Write',
  'Workers R2 Storage Read',
  'Workers R2 Storage Write',
];

/** The permission groups that may call `method template`; null when any valid token may. */
export function acceptedPermissions(method: string, template: string): readonly string[] | null {
  if (template === '/accounts/:account') return ACCOUNT_DETAILS;
  const service = SERVICES.find((candidate) => candidate.path.test(template));
  if (service === undefined) return null;
  const write = `${service.group} Write`;
  return method === 'GET' ? [`${service.group} Read`, write] : [write];
}
