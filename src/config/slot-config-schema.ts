// The slot config's schema: a pool, a list of templates per kind of resource (each kind's part comes
// from its module in src/kinds/), and the protections every expanded name is checked against.
import { kvRecreateNeedsWorker } from '../kinds/kv/bound-namespace.ts';
import { KIND_LIST, type KindKey, type KindTemplates, nameOf } from '../kinds/registry.ts';
import { IDENTIFIER, IDENTIFIER_RULE } from '../semaphore/protocol.ts';
import * as z from '../zod.ts';
import { PREVIEW_DEPLOY_EXAMPLES, type PreviewDeploy, previewDeploySchema } from './preview-deploy-config.ts';
import {
  WORKER_PREVIEWS_EXAMPLES,
  type WorkerPreviewsEntry,
  workerPreviewsSchema,
} from './worker-previews-config.ts';

/** Words no slot's resource name may contain, in any case: see `protect-words` in docs/config.md. */
export const DEFAULT_PROTECT_WORDS: readonly string[] = ['prod', 'production', 'prd'];

export interface SlotConfig {
  /** The file the config came from, for messages. */
  file: string;
  pool: string;
  resources: KindTemplates;
  /** Globs a resource name may not match. */
  protect: string[];
  /** Words a resource name may not contain. */
  protectWords: string[];
  /** Line and column of every name template by its path (`resources.d1[0].name`), for messages. */
  positions: Record<string, { line: number; column: number }>;
  /** Workers whose Cloudflare Worker Previews gc sweeps (`worker-previews`). */
  workerPreviews: WorkerPreviewsEntry[];
  /** What the slot's copy of the app's wrangler config runs with (`deploy`). */
  deploy: PreviewDeploy;
}

const resourcesSchema = z
  .strictObject(
    Object.fromEntries(KIND_LIST.map((kind) => [kind.key, z.array(kind.entry).default([])])) as Record<
      KindKey,
      z.ZodDefault<z.ZodArray<z.ZodType>>
    >,
  )
  .refine((resources) => Object.values(resources).some((list) => list.length > 0), {
    message: 'lists no resource to erase; write e.g. d1: [{ name: "app-{slot}-db" }] under resources',
  })
  .superRefine(kvRecreateNeedsWorker);

export const slotConfigSchema = z.strictObject({
  pool: z.string().regex(IDENTIFIER, `must be ${IDENTIFIER_RULE}; write e.g. pool: preview-slot`),
  resources: resourcesSchema,
  protect: z.array(z.string().min(1, 'must not be empty; write e.g. "*-live*"')).default([]),
  'protect-words': z
    .array(
      z.string().regex(/^[\p{L}\p{N}]{1,63}$/u, 'must be one word of letters and digits; write e.g. prod'),
    )
    .default([...DEFAULT_PROTECT_WORDS]),
  'worker-previews': workerPreviewsSchema,
  deploy: previewDeploySchema,
});

/** The example shown when a key is missing or has the wrong type, by path without indexes. */
export const SLOT_CONFIG_EXAMPLES: Record<string, string> = {
  '': `a mapping with pool and resources; see docs/config.md`,
  pool: 'pool: preview-slot',
  resources: 'resources: { d1: [{ name: "app-{slot}-db" }] }',
  ...Object.fromEntries(
    KIND_LIST.flatMap((kind) =>
      Object.entries(kind.examples).map(([below, example]) => [`resources.${kind.key}${below}`, example]),
    ),
  ),
  protect: 'protect: ["*-live*"]',
  'protect[]': '"*-live*"',
  'protect-words': 'protect-words: [prod, production, prd]',
  'protect-words[]': 'prod',
  ...WORKER_PREVIEWS_EXAMPLES,
  ...PREVIEW_DEPLOY_EXAMPLES,
};

/** The parsed resources as templates, kind by kind. */
export function templatesOf(resources: Record<KindKey, unknown[]>): KindTemplates {
  return Object.fromEntries(
    KIND_LIST.map((kind) => [kind.key, resources[kind.key].map((entry: unknown) => kind.template(entry))]),
  ) as KindTemplates;
}

/** One name template of the config and where it is: `resources.d1[0].name`. */
export interface NameTemplate {
  kind: KindKey;
  path: string;
  template: string;
}

/** Every name template, in the order of the file (kind by kind). */
export function nameTemplatesOf(resources: KindTemplates): NameTemplate[] {
  return KIND_LIST.flatMap((kind) => {
    const templates: readonly object[] = resources[kind.key];
    return templates.map((template, index) => ({
      kind: kind.key,
      path: `resources.${kind.key}[${index}].${kind.nameKey}`,
      template: nameOf(kind, template),
    }));
  });
}
