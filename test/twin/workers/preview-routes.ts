// Worker Previews, `/workers/workers/:name/previews`: list, get, create, delete, and a preview's
// deployments (create, get, `latest`), as `wrangler preview` and `wrangler preview delete` call them.
// A preview's Durable Object classes (from its deployments' migrations or exports) are namespaces of
// its own, deleted with it. Sources: wrangler's deploy-helpers preview/api.ts (routes, bodies: JSON
// for a preview, multipart `metadata` + `files` for a deployment) and preview/preview.ts (code 10025
// for a preview that does not exist; 404, 10025 or 10222 for a preview without deployments);
// wrangler's PreviewResource and DeploymentResource types for the answers (the SDK has none); the
// Previews API docs ("`{preview_id}` accepts a Preview ID, slug, or URL-encoded name"; "Deletes the
// Preview and all of its Deployments"; List Previews' `page`, `per_page` default 10) and the Previews
// Durable Object docs (a namespace per class per preview, "deleted when the Preview is deleted").
import { randomUUID } from 'node:crypto';
import type { HttpHandler } from 'msw';
import { z } from 'zod';
import type { AccountCore } from '../account-core.ts';
import { ApiFailure, badRequest, jsonBody, notFound, ok, pageOf } from '../envelope.ts';
import { type RouteContext, route } from '../gate.ts';
import { type ExportEntry, type Step, uploadMetadataSchema } from './metadata.ts';
import { formOf } from './requests.ts';
import {
  type DoClass,
  newClass,
  newId,
  type PreviewDeployment,
  type WorkerPreview,
  type WorkersStore,
} from './store.ts';
import { workerOf } from './version-routes.ts';
import { previewHost } from './versions.ts';

const PREVIEWS = '/accounts/:account/workers/workers/:name/previews';

/** A Worker Preview as the API answers it: wrangler's PreviewResource. */
export interface PreviewResource {
  id: string;
  name: string;
  slug: string;
  urls?: string[];
  worker_name: string;
  tags?: string[];
  created_on: string;
  updated_on: string;
}

/** A preview's deployment as the API answers it: wrangler's DeploymentResource. */
export interface DeploymentResource {
  id: string;
  preview_id: string;
  preview_name: string;
  migration_tag?: string;
  urls?: string[];
  annotations?: Record<string, string>;
  env?: Record<string, Record<string, unknown>>;
  created_on: string;
}

const createSchema = z.looseObject({ name: z.string().min(1).max(256) });
const deploymentMetadataSchema = uploadMetadataSchema.extend({
  env: z.record(z.string(), z.looseObject({ type: z.string() })).optional(),
});

/** The slug of a preview's name: lower case, every run of other characters one `-` (the docs' example: feature/my-branch → feature-my-branch). */
export function slugOf(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

function previewOf(workers: WorkersStore, ctx: RouteContext): WorkerPreview {
  const script = workerOf(workers, ctx);
  const key = decodeURIComponent(ctx.params.preview ?? '');
  const preview = script.previews.find((p) => p.id === key || p.slug === key || p.name === key);
  if (!preview) throw notFound(10025, `Preview '${key}' not found`);
  return preview;
}

function previewView(workers: WorkersStore, ctx: RouteContext, preview: WorkerPreview): PreviewResource {
  const script = workerOf(workers, ctx);
  return {
    id: preview.id,
    name: preview.name,
    slug: preview.slug,
    urls: [`https://${previewHost(workers, script, preview.slug)}`],
    worker_name: script.name,
    tags: [],
    created_on: preview.createdOn,
    updated_on: preview.updatedOn,
  };
}

function deploymentView(
  workers: WorkersStore,
  ctx: RouteContext,
  preview: WorkerPreview,
  deployment: PreviewDeployment,
): DeploymentResource {
  const script = workerOf(workers, ctx);
  return {
    id: deployment.id,
    preview_id: preview.id,
    preview_name: preview.name,
    ...(deployment.migrationTag === undefined ? {} : { migration_tag: deployment.migrationTag }),
    urls: [`https://${previewHost(workers, script, deployment.id.slice(0, 8))}`],
    annotations: deployment.annotations,
    env: deployment.env,
    created_on: deployment.createdOn,
  };
}

/** The preview's classes after a deployment's migration steps and exports: a namespace each. */
function applyClasses(preview: WorkerPreview, steps: Step[], exports: Record<string, ExportEntry>): void {
  const classes = new Map<string, DoClass>(preview.classes.map((c) => [c.name, c]));
  const create = (name: string, sqlite: boolean) => {
    if (!classes.has(name)) classes.set(name, newClass(name, sqlite, 0));
  };
  for (const step of steps) {
    for (const name of step.new_classes ?? []) create(name, false);
    for (const name of step.new_sqlite_classes ?? []) create(name, true);
    for (const { from, to } of step.renamed_classes ?? []) {
      const source = classes.get(from);
      if (!source)
        throw badRequest(10065, `Cannot apply rename migration from class '${from}': no such class`);
      classes.delete(from);
      classes.set(to, { ...source, name: to });
    }
    for (const name of step.deleted_classes ?? []) classes.delete(name);
  }
  for (const [name, entry] of Object.entries(exports)) {
    if (entry.type !== 'durable-object') continue;
    if (entry.state === 'deleted') classes.delete(name);
    else create(name, (entry.storage ?? 'sqlite') === 'sqlite');
  }
  preview.classes = [...classes.values()];
}

async function newDeployment(
  request: Request,
  preview: WorkerPreview,
  now: number,
): Promise<PreviewDeployment> {
  const form = await formOf(request, 'metadata');
  const part = form.get('metadata');
  const text = typeof part === 'string' ? part : await part?.text();
  let json: unknown;
  try {
    json = JSON.parse(text ?? '');
  } catch {
    throw badRequest(10021, 'could not read content for part metadata: not JSON');
  }
  const parsed = deploymentMetadataSchema.safeParse(json);
  if (!parsed.success) throw badRequest(10021, `metadata: ${parsed.error.issues[0]?.message}`);
  const metadata = parsed.data;
  const files = form.getAll('files').filter((file) => typeof file !== 'string');
  if (metadata.main_module !== undefined && !files.some((file) => file.name === metadata.main_module)) {
    throw badRequest(10021, `No such module "${metadata.main_module}".`);
  }
  const migrations = metadata.migrations;
  const current = preview.deployments.at(-1)?.migrationTag;
  if (migrations && (migrations.old_tag ?? undefined) !== current) {
    throw badRequest(10079, `Migration tag precondition failed; current tag is ${current ?? '(none)'}`);
  }
  applyClasses(preview, migrations ? (migrations.steps ?? [migrations]) : [], metadata.exports ?? {});
  return {
    id: randomUUID(),
    createdOn: new Date(now).toISOString(),
    mainModule: metadata.main_module,
    migrationTag: migrations?.new_tag ?? current,
    annotations: metadata.annotations ?? {},
    env: metadata.env ?? {},
  };
}

export function previewRoutes(workers: WorkersStore, account: AccountCore): HttpHandler[] {
  return [
    route(account, 'GET', PREVIEWS, (ctx) => {
      const previews = workerOf(workers, ctx).previews;
      const { result, resultInfo } = pageOf(previews, ctx.url, {
        defaultPerPage: 10,
        maxPerPage: 100,
        totals: true,
      });
      return ok<PreviewResource[]>(
        result.map((preview) => previewView(workers, ctx, preview)),
        resultInfo,
      );
    }),
    route(account, 'POST', PREVIEWS, async (ctx) => {
      const script = workerOf(workers, ctx);
      const parsed = createSchema.safeParse(await jsonBody(ctx.request));
      if (!parsed.success) throw badRequest(10021, 'the body must name the preview: {"name": …}');
      const slug = slugOf(parsed.data.name);
      if (script.previews.some((p) => p.slug === slug || p.name === parsed.data.name)) {
        throw new ApiFailure(409, 10026, `Preview '${parsed.data.name}' already exists`);
      }
      // The account's clock: a test moves it to make a preview (and its deployments) days old.
      const now = new Date(account.now()).toISOString();
      const preview: WorkerPreview = {
        id: newId(),
        slug,
        name: parsed.data.name,
        createdOn: now,
        updatedOn: now,
        classes: [],
        deployments: [],
      };
      script.previews.push(preview);
      return ok<PreviewResource>(previewView(workers, ctx, preview));
    }),
    route(account, 'GET', `${PREVIEWS}/:preview`, (ctx) =>
      ok<PreviewResource>(previewView(workers, ctx, previewOf(workers, ctx))),
    ),
    route(account, 'DELETE', `${PREVIEWS}/:preview`, (ctx) => {
      const script = workerOf(workers, ctx);
      const preview = previewOf(workers, ctx);
      // Its deployments and its Durable Object namespaces go with it.
      script.previews = script.previews.filter((candidate) => candidate !== preview);
      return ok<null>(null);
    }),
    route(account, 'POST', `${PREVIEWS}/:preview/deployments`, async (ctx) => {
      const preview = previewOf(workers, ctx);
      const deployment = await newDeployment(ctx.request, preview, account.now());
      preview.deployments.push(deployment);
      preview.updatedOn = deployment.createdOn;
      return ok<DeploymentResource>(deploymentView(workers, ctx, preview, deployment));
    }),
    route(account, 'GET', `${PREVIEWS}/:preview/deployments/:deployment`, (ctx) => {
      const preview = previewOf(workers, ctx);
      const id = ctx.params.deployment ?? '';
      const deployment =
        id === 'latest' ? preview.deployments.at(-1) : preview.deployments.find((d) => d.id === id);
      if (!deployment) throw notFound(10222, `Preview '${preview.name}' has no deployment '${id}'`);
      return ok<DeploymentResource>(deploymentView(workers, ctx, preview, deployment));
    }),
  ];
}
