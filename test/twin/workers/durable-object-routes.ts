// Durable Object namespaces and objects, and container applications (docs/cloudflare.md#workers-and-durable-objects, docs/cloudflare.md#containers). The namespaces listing
// pages by page/per_page with `page`, `per_page` and `count` only (the SDK's V4PagePaginationArray;
// the API's OpenAPI `WorkersApiResponseCollection` has no totals) and includes the namespaces of
// Worker previews, which carry the parent Worker's name in `script` plus `preview` (wrangler's
// containers/deploy.ts reads `preview.id` to tell them apart).
import type Cloudflare from 'cloudflare';
import type { HttpHandler } from 'msw';
import type { AccountCore } from '../account-core.ts';
import {
  cursorPageOf,
  decodeCursor,
  encodeCursor,
  notFound,
  ok,
  type PageTokenInfo,
  pageOf,
} from '../envelope.ts';
import { route } from '../gate.ts';
import type { ContainerApp, NamespaceRow, WorkersStore } from './store.ts';

const NAMESPACES = '/accounts/:account/workers/durable_objects/namespaces';
const APPS = '/accounts/:account/containers/applications';

type Application = Cloudflare.Containers.Applications.ApplicationListResponse;

function appView(account: AccountCore, app: ContainerApp): Application {
  const common = {
    id: app.id,
    name: app.name,
    account_id: account.accountId,
    created_at: app.createdAt,
    updated_at: app.createdAt,
    version: 1,
    instances: 0,
    max_instances: 5,
    configuration: { image: `registry.cloudflare.com/${account.accountId}/${app.name}:latest` },
  };
  return app.namespaceId === undefined
    ? { ...common, scheduling_policy: 'default' }
    : { ...common, scheduling_policy: 'durable_object', durable_objects: { namespace_id: app.namespaceId } };
}

export function durableObjectRoutes(workers: WorkersStore, account: AccountCore): HttpHandler[] {
  return [
    route(account, 'GET', NAMESPACES, ({ url }) => {
      const { result, resultInfo } = pageOf(workers.namespaces(), url, {
        defaultPerPage: 20,
        maxPerPage: 1000,
        totals: false,
      });
      return ok<NamespaceRow[]>(result, resultInfo);
    }),
    route(account, 'GET', `${NAMESPACES}/:id/objects`, ({ params, url }) => {
      const ns = workers.findNamespace(params.id ?? '');
      if (!ns) throw notFound(10066, 'Durable Object namespace not found');
      const objects = [...ns.objectIds].sort().map((id) => ({ id, hasStoredData: true }));
      const { result, resultInfo } = cursorPageOf(objects, (o) => o.id, url, {
        defaultLimit: 1000,
        minLimit: 10,
        maxLimit: 10000,
      });
      return ok<Cloudflare.DurableObjects.Namespaces.DurableObject[]>(result, resultInfo);
    }),
  ];
}

export function containerRoutes(workers: WorkersStore, account: AccountCore): HttpHandler[] {
  return [
    route(account, 'GET', APPS, ({ url }) => {
      const apps = [...workers.containers.values()].sort((a, b) => a.id.localeCompare(b.id));
      const perPage = Math.min(100, Math.max(1, Number(url.searchParams.get('per_page') ?? 20) || 20));
      const after = decodeCursor(url.searchParams.get('page_token'));
      const start = after === null ? 0 : apps.findIndex((a) => a.id > after);
      const from = start === -1 ? apps.length : start;
      const page = apps.slice(from, from + perPage);
      const last = page.at(-1);
      const info: PageTokenInfo = { per_page: perPage };
      if (last && from + perPage < apps.length) info.next_page_token = encodeCursor(last.id);
      return ok<Application[]>(
        page.map((app) => appView(account, app)),
        info,
      );
    }),
    route(account, 'GET', `${APPS}/:id`, ({ params }) => {
      const app = workers.containers.get(params.id ?? '');
      if (!app) throw notFound(1404, 'application not found');
      return ok<Cloudflare.Containers.Applications.ApplicationGetResponse>(appView(account, app));
    }),
    route(account, 'DELETE', `${APPS}/:id`, ({ params }) => {
      if (!workers.containers.delete(params.id ?? '')) throw notFound(1404, 'application not found');
      return ok<Cloudflare.Containers.Applications.ApplicationDeleteResponse>({
        message: 'application deleted',
      });
    }),
  ];
}
