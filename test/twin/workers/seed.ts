// A Worker in a seed: its migration tag or exports mode, its Durable Object classes (a container on
// some), its bindings, its workers.dev switches, versions uploaded after the deployed one, and its
// Worker Previews; and the seed that makes a slot's Worker exist with a class.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { type DoClass, newClass, newId, type WorkerScript, type WorkersStore } from './store.ts';
import { newDeployment, newVersion } from './versions.ts';

export const workerSeedSchema = z.strictObject({
  name: z.string().min(1),
  migrationTag: z.string().min(1).optional(),
  /** true: the script uses declarative `exports` instead of migrations. */
  exportsMode: z.boolean().optional(),
  classes: z
    .array(
      z.strictObject({
        name: z.string().regex(/^[A-Za-z_$][\w$]*$/, 'a JavaScript class name'),
        sqlite: z.boolean().optional(),
        /** A DO-backed container application is created for this class. */
        container: z.boolean().optional(),
        /** How many Durable Objects the namespace holds (default 1). */
        objects: z.number().int().nonnegative().max(100_000).optional(),
      }),
    )
    .optional(),
  /**
   * Durable Object bindings of the deployed script; omitted = one binding per own class.
   * `script_name` points at another Worker's class (that Worker cannot then delete it: 10061).
   */
  bindings: z
    .array(
      z.strictObject({
        name: z.string().min(1),
        class_name: z.string().min(1),
        script_name: z.string().min(1).optional(),
      }),
    )
    .optional(),
  /** workers.dev is on for the Worker (default false). */
  workersDev: z.boolean().optional(),
  /** Its cron triggers, as production's deploy left them. */
  crons: z.array(z.string().min(1)).optional(),
  /** Its version and alias preview URLs are on (default: as `workersDev`, the API's default). */
  previewUrls: z.boolean().optional(),
  /**
   * Versions uploaded after the deployed one and not deployed (`wrangler versions upload`), each
   * optionally with an alias, a tag and a message.
   */
  versions: z
    .array(
      z.strictObject({
        alias: z
          .string()
          .regex(/^[a-z](?:[a-z0-9-]*[a-z0-9])?$/, 'an alias: lower case letters, digits and -')
          .optional(),
        tag: z.string().optional(),
        message: z.string().optional(),
      }),
    )
    .optional(),
  /**
   * Worker Previews, each deployed once, with its own Durable Object namespaces: listed with the
   * Worker's name in `script` and the preview in `preview`.
   */
  previews: z
    .array(
      z.strictObject({
        slug: z.string().regex(/^[a-z0-9-]{1,63}$/, 'a preview slug: a-z, 0-9 and -'),
        classes: z.array(
          z.strictObject({
            name: z.string().min(1),
            objects: z.number().int().min(0).max(100_000).optional(),
          }),
        ),
      }),
    )
    .optional(),
});
export type WorkerSeed = z.infer<typeof workerSeedSchema>;

export function seedWorker(workers: WorkersStore, w: WorkerSeed): void {
  const classes = new Map<string, DoClass>();
  for (const c of w.classes ?? []) {
    const doClass = newClass(c.name, c.sqlite ?? true, c.objects ?? 1);
    classes.set(c.name, doClass);
    if (c.container) {
      // wrangler's default container name: `<worker>-<class>`, lowercased.
      doClass.container = `${w.name}-${c.name}`.toLowerCase();
      const id = randomUUID();
      workers.containers.set(id, {
        id,
        name: doClass.container,
        namespaceId: doClass.namespaceId,
        createdAt: new Date().toISOString(),
      });
    }
  }
  const bindings = (
    w.bindings ?? (w.classes ?? []).map((c) => ({ name: c.name.toUpperCase(), class_name: c.name }))
  ).map((b) => ({ type: 'durable_object_namespace', ...b }));
  const text = [...classes.keys()].map((name) => `export class ${name} {}`).join('\n');
  const now = new Date().toISOString();
  const workersDev = w.workersDev ?? false;
  const script: WorkerScript = {
    name: w.name,
    tag: newId(),
    etag: newId(),
    migrationTag: w.migrationTag,
    exportsMode: w.exportsMode ?? false,
    tags: [],
    classes,
    bindings,
    modules: [
      {
        name: 'index.js',
        contentType: 'application/javascript+module',
        text: `${text}\nexport default {};`,
      },
    ],
    mainModule: 'index.js',
    compatibilityDate: '2026-01-01',
    compatibilityFlags: [],
    createdOn: now,
    modifiedOn: now,
    lastDeployedFrom: 'wrangler',
    versions: [],
    deployments: [],
    subdomain: { enabled: workersDev, previews_enabled: w.previewUrls ?? workersDev },
    schedules: (w.crons ?? []).map((cron) => ({ cron, created_on: now, modified_on: now })),
    previews: (w.previews ?? []).map((preview) => ({
      id: newId(),
      slug: preview.slug,
      name: preview.slug,
      createdOn: now,
      updatedOn: now,
      classes: preview.classes.map((c) => newClass(c.name, true, c.objects ?? 1)),
      deployments: [
        {
          id: randomUUID(),
          createdOn: now,
          mainModule: 'index.js',
          migrationTag: undefined,
          annotations: {},
          env: {},
        },
      ],
    })),
  };
  const deployed = newVersion(script, { main_module: 'index.js' }, 'wrangler');
  script.versions.push(deployed);
  script.deployments.push(newDeployment(deployed.id, 'wrangler', { 'workers/triggered_by': 'upload' }));
  for (const extra of w.versions ?? []) {
    const annotations = {
      ...(extra.alias === undefined ? {} : { 'workers/alias': extra.alias }),
      ...(extra.tag === undefined ? {} : { 'workers/tag': extra.tag }),
      ...(extra.message === undefined ? {} : { 'workers/message': extra.message }),
    };
    script.versions.push(newVersion(script, { main_module: 'index.js', annotations }, 'wrangler'));
  }
  workers.scripts.set(w.name, script);
}

/** A slot's Worker as preview-gc's slot config expands it (the fields the seed reads). */
export interface WorkerSlotResource {
  name: string;
}

/** A Worker deployed with migrations and one SQLite Durable Object class, as a preview's Worker is. */
export function workerSeedFor(resource: WorkerSlotResource): WorkerSeed[] {
  return [{ name: resource.name, migrationTag: 'v1', classes: [{ name: 'PreviewRoom' }] }];
}
