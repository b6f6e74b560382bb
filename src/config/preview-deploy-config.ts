// The `deploy` section of the slot config: what the slot's copy of the app's wrangler config runs with
// besides the slot's resources (docs/config.md#the-slots-wrangler-config). Which `env` block of the
// app's config is the preview's, the preview's `vars` when the app has no such block, the bindings
// shared with what they name on purpose, and a route pattern for the preview instead of workers.dev.
import { fillPlaceholders } from '../kinds/name-template.ts';
import * as z from '../zod.ts';

/** What the slot config says of the deploy; every key has a safe default. */
export interface PreviewDeploy {
  /** The `env` block of the app's wrangler config applied as `wrangler deploy --env <env>` would. */
  env: string;
  /** The preview's vars when the app's config has no such block; strings expand {slot} and {n}. */
  vars: Record<string, string | number | boolean> | undefined;
  /** Bindings (or wrangler keys) the preview shares with whatever they name, chosen on purpose. */
  shared: string[];
  /** A route pattern for the preview (`{slot}.preview.example.com/*`), else it answers on workers.dev. */
  route: string | undefined;
}

export const DEFAULT_PREVIEW_ENV = 'preview';

/** wrangler's rule for an environment's name, so the one named here can be the app's. */
const ENV_NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** A var's name, as Workers bind it: an identifier. */
const VAR_NAME = /^[A-Za-z_$][A-Za-z0-9_$]{0,255}$/;
/** A route pattern: a host that holds {slot} or {n}, and a path; no scheme, no spaces. */
const ROUTE = /^(?:\*\.)?[a-z0-9{}.-]+\/[^\s]*$/;

export const previewDeploySchema = z
  .strictObject({
    env: z
      .string()
      .regex(
        ENV_NAME,
        "must be the name of an env block of the app's wrangler config; write e.g. env: preview",
      )
      .default(DEFAULT_PREVIEW_ENV),
    vars: z
      .record(
        z.string().regex(VAR_NAME, 'must be a variable name (letters, digits, _ and $); write e.g. API_BASE'),
        z.union([z.string().max(5120), z.number(), z.boolean()]),
      )
      .optional(),
    shared: z
      .array(z.string().regex(/^[A-Za-z0-9_$-]{1,256}$/, 'must be a binding name; write e.g. HYPERDRIVE'))
      .default([]),
    route: z
      .string()
      .regex(ROUTE, 'must be a route pattern with a path, e.g. route: "{slot}.preview.example.com/*"')
      .refine((route) => /\{(slot|n)\}/.test(route.split('/')[0] ?? ''), {
        message:
          'must hold {slot} or {n} in its host, so that no two slots share a route; write e.g. route: "{slot}.preview.example.com/*"',
      })
      .optional(),
  })
  .default({ env: DEFAULT_PREVIEW_ENV, shared: [] })
  .transform(
    (deploy): PreviewDeploy => ({
      env: deploy.env,
      vars: deploy.vars,
      shared: deploy.shared,
      route: deploy.route,
    }),
  );

export const PREVIEW_DEPLOY_EXAMPLES: Record<string, string> = {
  deploy: 'deploy: { env: preview, shared: [HYPERDRIVE] }',
  'deploy.env': 'env: preview',
  'deploy.vars': 'vars: { API_BASE: "https://api-{slot}.example.dev" }',
  'deploy.shared': 'shared: [HYPERDRIVE, AUTH]',
  'deploy.shared[]': 'HYPERDRIVE',
  'deploy.route': 'route: "{slot}.preview.example.com/*"',
};

/** A var's value for one slot: strings expand {slot} (the slug) and {n} (its number, or nothing). */
export function expandVar(value: string | number | boolean, slug: string, number: string | undefined) {
  return typeof value === 'string' ? fillPlaceholders(value, slug, number) : value;
}
