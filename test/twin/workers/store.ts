// Workers scripts, their Durable Object classes (one namespace per class), the namespaces of their
// previews, and container applications.
import { randomBytes, randomUUID } from 'node:crypto';
import type Cloudflare from 'cloudflare';

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
 * A Worker preview: its Durable Object namespaces are listed with the parent Worker's name in
 * `script` and the preview in `preview` (wrangler's containers/deploy.ts, DurableObjectNamespace).
 */
export interface WorkerPreview {
  id: string;
  slug: string;
  name: string;
  classes: DoClass[];
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
  /** The version the last upload created; the latest deployment serves it at 100 %. */
  versionId: string;
  deploymentId: string;
  subdomain: { enabled: boolean; previews_enabled: boolean };
  previews: WorkerPreview[];
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

/** A version uploaded with the versions API, waiting for a deployment that makes it the live one. */
export interface PendingVersion {
  script: string;
  metadata: Record<string, unknown>;
  modules: WorkerModule[];
  client: string;
}

export class WorkersStore {
  readonly scripts = new Map<string, WorkerScript>();
  readonly versions = new Map<string, PendingVersion>();
  readonly containers = new Map<string, ContainerApp>();
  /** The account's workers.dev subdomain. */
  readonly subdomain = 'preview-gc-twin';

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
          ...namespaceRow(c, script.name, `${script.name}-${preview.slug}_${c.name}`),
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
