// Workers scripts, their Durable Object classes (one namespace per class), their versions and
// deployments, their Worker Previews (each with its own namespaces), and container applications.
import { randomBytes, randomUUID } from 'node:crypto';
import type Cloudflare from 'cloudflare';
import type { UploadMetadata } from './metadata.ts';

export interface DoClass {
  name: string;
  sqlite: boolean;
  namespaceId: string;
  objectIds: string[];
  state: 'live' | 'deleted';
  /**
   * The container (by name) the last upload attached to the class. An upload that leaves a
   * container-backed class out of `metadata.containers` turns its containers off (workers-sdk
   * changelog, #12368).
   */
  container: string | undefined;
}

export interface DoBinding {
  name: string;
  class_name: string;
  script_name?: string;
}

export interface WorkerModule {
  name: string;
  contentType: string;
  text: string;
}

/** A container as an upload declares it (`metadata.containers`, wrangler's create-worker-upload-form). */
export interface DeclaredContainer {
  name?: string;
  class_name?: string;
}

/**
 * A Worker Preview (`/workers/workers/:name/previews`): its own deployments, and its own Durable Object
 * namespaces, listed with the parent Worker's name in `script` and the preview in `preview`
 * (wrangler's containers/deploy.ts, DurableObjectNamespace), deleted with it (the Previews docs).
 */
export interface WorkerPreview {
  /** 32 hex characters (the Previews API docs: "Immutable 32-character hex string"). */
  id: string;
  slug: string;
  name: string;
  createdOn: string;
  updatedOn: string;
  classes: DoClass[];
  deployments: PreviewDeployment[];
}

/** One deployment of a Worker Preview (wrangler's DeploymentResource). */
export interface PreviewDeployment {
  id: string;
  createdOn: string;
  mainModule: string | undefined;
  migrationTag: string | undefined;
  annotations: Record<string, string>;
  env: Record<string, Record<string, unknown>>;
}

/** The annotations a version carries (the upload metadata's `annotations`, SDK VersionCreateParams). */
export interface VersionAnnotations {
  'workers/message'?: string;
  'workers/tag'?: string;
  'workers/alias'?: string;
  'workers/triggered_by'?: string;
}

/**
 * One version of a Worker: every upload makes one (the script upload, which deploys it at once, and
 * the versions API, which does not). Kept as uploaded, so a later deployment can make it live.
 */
export interface WorkerVersion {
  id: string;
  /** 1, 2, … in upload order (the SDK's `number`). */
  number: number;
  createdOn: string;
  /** Who uploaded it: `wrangler` or `api` (the SDK's `metadata.source`). */
  source: string;
  annotations: VersionAnnotations;
  /**
   * Whether it gets a version preview URL: not for a Worker that implements a Durable Object (the
   * preview URLs docs, "Limitations").
   */
  hasPreview: boolean;
  metadata: UploadMetadata;
  modules: WorkerModule[];
  bindings: Record<string, unknown>[];
  compatibilityDate: string;
  compatibilityFlags: string[];
  migrationTag: string | undefined;
}

/** A deployment: the versions that serve the Worker's traffic, with their share. */
export interface WorkerDeployment {
  id: string;
  createdOn: string;
  source: string;
  versions: { version_id: string; percentage: number }[];
  annotations: { 'workers/message'?: string; 'workers/triggered_by'?: string };
}

export interface WorkerScript {
  name: string;
  /** The script's immutable id (`tag` in the API). */
  tag: string;
  /** Changes with every upload of new content (the SDK: "Hashed script content"). */
  etag: string;
  migrationTag: string | undefined;
  exportsMode: boolean;
  /** Script tags; an upload without `tags` keeps them (wrangler never sends `tags` in an upload). */
  tags: string[];
  classes: Map<string, DoClass>;
  /** Every binding of the last upload, as sent. */
  bindings: Record<string, unknown>[];
  modules: WorkerModule[];
  mainModule: string;
  compatibilityDate: string;
  compatibilityFlags: string[];
  createdOn: string;
  modifiedOn: string;
  /** The client of the last upload: `wrangler` or `api` (wrangler warns before overwriting `api`). */
  lastDeployedFrom: string;
  /** Every version not deleted, oldest first. */
  versions: WorkerVersion[];
  /** Every deployment not deleted, oldest first: the last one serves the traffic. */
  deployments: WorkerDeployment[];
  subdomain: { enabled: boolean; previews_enabled: boolean };
  previews: WorkerPreview[];
  /** Its cron triggers (schedule-routes.ts): an upload leaves them as they are. */
  schedules: { cron: string; created_on: string; modified_on: string }[];
}

export interface ContainerApp {
  id: string;
  name: string;
  /** The DO namespace of a DO-backed application. */
  namespaceId: string | undefined;
  createdAt: string;
}

/** A namespace as the DO namespaces listing shows it: the SDK's Namespace, plus `preview`. */
export type NamespaceRow = Required<Cloudflare.DurableObjects.Namespaces.Namespace> & {
  preview?: { id: string; slug: string; name: string };
};

export function newObjectIds(count: number): string[] {
  return Array.from({ length: count }, () => randomBytes(32).toString('hex'));
}

export function newClass(name: string, sqlite: boolean, objects = 0): DoClass {
  return {
    name,
    sqlite,
    namespaceId: randomUUID().replaceAll('-', ''),
    objectIds: newObjectIds(objects),
    state: 'live',
    container: undefined,
  };
}

export function newId(): string {
  return randomUUID().replaceAll('-', '');
}

export function doBindingsOf(bindings: Record<string, unknown>[]): DoBinding[] {
  return bindings.flatMap((b) => {
    if (b.type !== 'durable_object_namespace' || typeof b.class_name !== 'string') return [];
    const binding: DoBinding = { name: String(b.name ?? ''), class_name: b.class_name };
    if (typeof b.script_name === 'string') binding.script_name = b.script_name;
    return [binding];
  });
}

/** The twin's model of "the code exports the class": some module's text contains `class <Name>`. */
export function classesInCode(modules: WorkerModule[], names: Iterable<string>): Set<string> {
  const found = new Set<string>();
  for (const name of names) {
    const pattern = new RegExp(`\\bclass\\s+${name.replaceAll('$', '\\$')}\\b`);
    if (modules.some((m) => pattern.test(m.text))) found.add(name);
  }
  return found;
}

/** The deployment serving the Worker now: the last one. */
export function activeDeployment(script: WorkerScript): WorkerDeployment | undefined {
  return script.deployments.at(-1);
}

export class WorkersStore {
  readonly scripts = new Map<string, WorkerScript>();
  readonly containers = new Map<string, ContainerApp>();
  /** The account's workers.dev subdomain. */
  readonly subdomain = 'preview-gc-twin';

  /**
   * The scripts whose bindings (of their last upload) name the store `id`: a binding of `type` whose
   * `idField` is `id`. Older versions' bindings do not count (a stand-in:
   * docs/twin.md#fidelity-where-each-behaviour-comes-from).
   */
  scriptsBinding({ type, idField, id }: { type: string; idField: string; id: string }): string[] {
    return [...this.scripts.values()]
      .filter((script) => script.bindings.some((b) => b.type === type && b[idField] === id))
      .map((script) => script.name);
  }

  /** Bindings other scripts hold to `className` of `scriptName`. */
  externalBindings(scriptName: string, className: string): { script: string; binding: string }[] {
    const found: { script: string; binding: string }[] = [];
    for (const script of this.scripts.values()) {
      if (script.name === scriptName) continue;
      for (const b of doBindingsOf(script.bindings)) {
        if (b.script_name === scriptName && b.class_name === className) {
          found.push({ script: script.name, binding: b.name });
        }
      }
    }
    return found;
  }

  containerFor(namespaceId: string): ContainerApp | undefined {
    return [...this.containers.values()].find((app) => app.namespaceId === namespaceId);
  }

  /** Every live namespace, previews' included, sorted by name: what the DO namespaces listing shows. */
  namespaces(): NamespaceRow[] {
    const rows = [...this.scripts.values()].flatMap((script) => [
      ...[...script.classes.values()]
        .filter((c) => c.state === 'live')
        .map((c) => namespaceRow(c, script.name, `${script.name}_${c.name}`)),
      ...script.previews.flatMap((preview) =>
        preview.classes.map((c) => ({
          // The Previews docs: a preview's namespace is named `{previewSlug}_{ClassName}`.
          ...namespaceRow(c, script.name, `${preview.slug}_${c.name}`),
          preview: { id: preview.id, slug: preview.slug, name: preview.name },
        })),
      ),
    ]);
    return rows.sort((a, b) => a.name.localeCompare(b.name));
  }

  findNamespace(id: string): DoClass | undefined {
    for (const script of this.scripts.values()) {
      for (const c of script.classes.values()) if (c.namespaceId === id && c.state === 'live') return c;
      for (const preview of script.previews) {
        const found = preview.classes.find((c) => c.namespaceId === id);
        if (found) return found;
      }
    }
    return undefined;
  }
}

function namespaceRow(c: DoClass, script: string, name: string): NamespaceRow {
  return { id: c.namespaceId, name, script, class: c.name, use_sqlite: c.sqlite };
}
