// A Worker's versions and deployments: `wrangler versions upload` (POST …/versions), `versions list`
// (GET …/versions?deployable=true), `versions view` (GET …/versions/:id), `deployments list` and
// `status` (GET …/deployments), `versions deploy` (POST …/deployments), the deletion of an old
// deployment, and the beta Workers API's versions (list, get, delete). Sources: wrangler's
// deploy-helpers versions-upload.ts and versions-api.ts (routes, bodies, the fields read: `items`,
// `deployments`, `metadata.has_preview`); the SDK's scripts/versions, scripts/deployments and
// beta/workers/versions types; the SDK's deployments.delete ("The latest deployment, which is
// actively serving traffic, cannot be deleted").
import type Cloudflare from 'cloudflare';
import type { HttpHandler } from 'msw';
import { z } from 'zod';
import type { AccountCore } from '../account-core.ts';
import { badRequest, jsonBody, notFound, ok, pageOf } from '../envelope.ts';
import { type RouteContext, route } from '../gate.ts';
import { uploadMetadataSchema } from './metadata.ts';
import { clientOf, formOf, jsonPart, modulesOf, SCRIPTS, scriptOf } from './requests.ts';
import { activeDeployment, newId, type WorkerScript, type WorkersStore } from './store.ts';
import { applyUpload } from './upload.ts';
import {
  betaVersion,
  deploymentView,
  newVersion,
  TWIN_AUTHOR,
  type VersionDetail,
  type VersionListItem,
  versionDetail,
  versionListItem,
} from './versions.ts';

const BETA_WORKERS = '/accounts/:account/workers/workers';

const deploymentSchema = z.looseObject({
  strategy: z.literal('percentage'),
  versions: z.array(z.looseObject({ version_id: z.string(), percentage: z.number() })).min(1),
  annotations: z.looseObject({ 'workers/message': z.string().optional() }).optional(),
});

/**
 * The answer to a version upload: the SDK's VersionCreateResponse, whose `metadata.hasPreview`
 * wrangler reads as `has_preview` (versions-upload.ts), so the twin sends both spellings.
 */
type VersionUploadAnswer = Cloudflare.Workers.Scripts.VersionCreateResponse & {
  metadata: { has_preview: boolean };
};

/** `GET …/versions` answers `{ items }` (wrangler's fetchDeployableVersions; the SDK's V4PagePagination). */
interface VersionList {
  items: VersionListItem[];
}

/** The beta API names a Worker by name or by its id (the SDK: "Identifier for the Worker, which can be ID or name"). */
export function workerOf(workers: WorkersStore, ctx: RouteContext): WorkerScript {
  const key = ctx.params.name ?? '';
  const script = workers.scripts.get(key) ?? [...workers.scripts.values()].find((s) => s.tag === key);
  if (!script) throw notFound(10007, 'This Worker does not exist on your account.');
  return script;
}

function versionOf(script: WorkerScript, id: string) {
  const version = script.versions.find((candidate) => candidate.id === id);
  if (!version) throw notFound(10220, `Version ${id} not found`);
  return version;
}

/** Newest first (a stand-in: no source says the API's order; wrangler sorts by created_on itself). */
const newestFirst = (script: WorkerScript) => [...script.versions].sort((a, b) => b.number - a.number);

function classicVersionRoutes(workers: WorkersStore, account: AccountCore): HttpHandler[] {
  return [
    route(account, 'POST', `${SCRIPTS}/:name/versions`, async (ctx) => {
      const script = scriptOf(workers, ctx);
      const form = await formOf(ctx.request, 'metadata');
      const metadata = await jsonPart(form, 'metadata');
      const modules = await modulesOf(form, metadata);
      const client = clientOf(ctx.request);
      // Checked as a deployment would be, not live until deployed.
      const checked = applyUpload(workers, script.name, metadata, modules, { client, dryRun: true });
      const version = newVersion(checked.script, metadata, client);
      script.versions.push(version);
      return ok<VersionUploadAnswer>({
        id: version.id,
        number: version.number,
        startup_time_ms: 1,
        metadata: {
          author_email: TWIN_AUTHOR,
          created_on: version.createdOn,
          modified_on: version.createdOn,
          source: client === 'wrangler' ? 'wrangler' : 'api',
          hasPreview: version.hasPreview,
          has_preview: version.hasPreview,
        },
        resources: { script: { etag: newId(), handlers: ['fetch'], last_deployed_from: client } },
      });
    }),
    route(account, 'GET', `${SCRIPTS}/:name/versions`, ({ url, ...ctx }) => {
      const script = scriptOf(workers, { url, ...ctx });
      const versions = newestFirst(script);
      // The SDK: `deployable` "Only return versions that can be used in a deployment. Ignores
      // pagination." The docs: a deployment can use only the last 100 uploaded versions.
      if (url.searchParams.get('deployable') === 'true') {
        return ok<VersionList>({ items: versions.slice(0, 100).map(versionListItem) });
      }
      const { result, resultInfo } = pageOf(versions, url, {
        defaultPerPage: 10,
        maxPerPage: 100,
        totals: true,
      });
      return ok<VersionList>({ items: result.map(versionListItem) }, resultInfo);
    }),
    route(account, 'GET', `${SCRIPTS}/:name/versions/:version`, (ctx) =>
      ok<VersionDetail>(versionDetail(versionOf(scriptOf(workers, ctx), ctx.params.version ?? ''))),
    ),
  ];
}

function deploymentRoutes(workers: WorkersStore, account: AccountCore): HttpHandler[] {
  return [
    route(account, 'GET', `${SCRIPTS}/:name/deployments`, (ctx) =>
      ok<Cloudflare.Workers.Scripts.DeploymentListResponse>({
        // The SDK: "The first deployment in the list is the latest deployment actively serving traffic."
        deployments: [...scriptOf(workers, ctx).deployments].reverse().map(deploymentView),
      }),
    ),
    route(account, 'POST', `${SCRIPTS}/:name/deployments`, async (ctx) => {
      const script = scriptOf(workers, ctx);
      const parsed = deploymentSchema.safeParse(await jsonBody(ctx.request));
      const only = parsed.data?.versions.length === 1 ? parsed.data.versions[0] : undefined;
      if (only?.percentage !== 100) {
        throw badRequest(10021, 'the twin deploys exactly one version at 100 %');
      }
      const version = versionOf(script, only.version_id);
      const outcome = applyUpload(
        workers,
        script.name,
        uploadMetadataSchema.parse(version.metadata),
        version.modules,
        {
          client: clientOf(ctx.request),
          deploying: version,
          message: parsed.data?.annotations?.['workers/message'],
        },
      );
      const deployment = activeDeployment(outcome.script);
      if (!deployment) throw new Error('a deployment was just made');
      return ok<Cloudflare.Workers.Scripts.Deployment>(deploymentView(deployment));
    }),
    route(account, 'DELETE', `${SCRIPTS}/:name/deployments/:deployment`, (ctx) => {
      const script = scriptOf(workers, ctx);
      const id = ctx.params.deployment ?? '';
      const deployment = script.deployments.find((candidate) => candidate.id === id);
      if (!deployment) throw notFound(10223, `Deployment ${id} not found`);
      if (deployment === activeDeployment(script)) {
        throw badRequest(
          10224,
          'The latest deployment, which is actively serving traffic, cannot be deleted.',
        );
      }
      script.deployments = script.deployments.filter((candidate) => candidate !== deployment);
      // The SDK types the answer as the envelope alone (DeploymentDeleteResponse): no result.
      return ok<null>(null);
    }),
  ];
}

function betaVersionRoutes(workers: WorkersStore, account: AccountCore): HttpHandler[] {
  const versions = `${BETA_WORKERS}/:name/versions`;
  return [
    route(account, 'GET', versions, ({ url, ...ctx }) => {
      const script = workerOf(workers, { url, ...ctx });
      const { result, resultInfo } = pageOf(newestFirst(script), url, {
        defaultPerPage: 20,
        maxPerPage: 100,
        totals: true,
      });
      return ok<Cloudflare.Workers.Beta.Workers.Version[]>(
        result.map((version) => betaVersion(workers, script, version)),
        resultInfo,
      );
    }),
    route(account, 'GET', `${versions}/:version`, (ctx) => {
      const script = workerOf(workers, ctx);
      return ok<Cloudflare.Workers.Beta.Workers.Version>(
        betaVersion(workers, script, versionOf(script, ctx.params.version ?? '')),
      );
    }),
    route(account, 'DELETE', `${versions}/:version`, (ctx) => {
      const script = workerOf(workers, ctx);
      const version = versionOf(script, ctx.params.version ?? '');
      // Stand-ins: no source says which versions the API refuses to delete. The twin refuses the
      // one serving traffic and any a remaining deployment names, so its deployments stay readable.
      if (script.deployments.some((d) => d.versions.some((v) => v.version_id === version.id))) {
        throw badRequest(
          10225,
          `Version ${version.id} is part of a deployment; delete the deployment first (the latest one cannot be deleted)`,
        );
      }
      script.versions = script.versions.filter((candidate) => candidate !== version);
      // The SDK types the answer as the envelope alone (VersionDeleteResponse): no result.
      return ok<null>(null);
    }),
  ];
}

export function versionRoutes(workers: WorkersStore, account: AccountCore): HttpHandler[] {
  return [
    ...classicVersionRoutes(workers, account),
    ...deploymentRoutes(workers, account),
    ...betaVersionRoutes(workers, account),
  ];
}
