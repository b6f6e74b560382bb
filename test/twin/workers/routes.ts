// Workers script routes (docs/cloudflare.md#workers-and-durable-objects): the multipart upload, the
// script list, settings and the script content. Sources: the SDK's response types; wrangler's
// cfetch/internal.ts for the content answer (multipart, the main module in cf-entrypoint).
import type Cloudflare from 'cloudflare';
import type { HttpHandler } from 'msw';
import type { AccountCore } from '../account-core.ts';
import { ok } from '../envelope.ts';
import { route } from '../gate.ts';
import { clientOf, formOf, jsonPart, modulesOf, SCRIPTS, scriptOf } from './requests.ts';
import type { WorkersStore } from './store.ts';
import { applyUpload } from './upload.ts';
import { activeVersion } from './versions.ts';
import { contentAnswer, type SettingsAnswer, scriptView, settingsView, type UploadAnswer } from './views.ts';

export function workersRoutes(workers: WorkersStore, account: AccountCore): HttpHandler[] {
  return [
    route(account, 'GET', SCRIPTS, () =>
      ok<Cloudflare.Workers.Scripts.ScriptListResponse[]>([...workers.scripts.values()].map(scriptView)),
    ),
    route(account, 'PUT', `${SCRIPTS}/:name`, async ({ request, params }) => {
      const form = await formOf(request, 'metadata');
      const metadata = await jsonPart(form, 'metadata');
      const modules = await modulesOf(form, metadata);
      const outcome = applyUpload(workers, params.name ?? '', metadata, modules, {
        client: clientOf(request),
      });
      return ok<UploadAnswer>({
        ...scriptView(outcome.script),
        startup_time_ms: 1,
        // wrangler reads the new version's id here, without hyphens.
        deployment_id: (activeVersion(outcome.script)?.id ?? '').replaceAll('-', ''),
        ...(outcome.reconciliation ? { exports_reconciliation: outcome.reconciliation } : {}),
      });
    }),
    route(account, 'DELETE', `${SCRIPTS}/:name`, (ctx) => {
      const script = scriptOf(workers, ctx);
      workers.scripts.delete(script.name);
      return ok<Cloudflare.Workers.Scripts.ScriptDeleteResponse>(null);
    }),
    route(account, 'GET', `${SCRIPTS}/:name/settings`, (ctx) =>
      ok<SettingsAnswer>(settingsView(scriptOf(workers, ctx))),
    ),
    route(account, 'PATCH', `${SCRIPTS}/:name/settings`, async (ctx) => {
      const script = scriptOf(workers, ctx);
      const form = await formOf(ctx.request, 'settings');
      const settings = await jsonPart(form, 'settings');
      const outcome = applyUpload(workers, script.name, settings, undefined, {
        client: clientOf(ctx.request),
      });
      return ok<Cloudflare.Workers.Scripts.ScriptAndVersionSettingEditResponse>({
        ...settingsView(outcome.script),
        ...(outcome.reconciliation ? { exports_reconciliation: outcome.reconciliation } : {}),
      });
    }),
    route(account, 'GET', `${SCRIPTS}/:name/content/v2`, (ctx) => contentAnswer(scriptOf(workers, ctx))),
  ];
}
