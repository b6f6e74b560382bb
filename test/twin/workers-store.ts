// Workers scripts, their Durable Object classes (one namespace per class) and container applications.
import { randomBytes, randomUUID } from 'node:crypto';

export interface DoClass {
  name: string;
  sqlite: boolean;
  namespaceId: string;
  objectIds: string[];
  state: 'live' | 'deleted';
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

export interface WorkerScript {
  name: string;
  etag: string;
  migrationTag: string | undefined;
  exportsMode: boolean;
  /** Script tags from the last upload's metadata (the script list shows them). */
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
}

export interface ContainerApp {
  id: string;
  name: string;
  /** The DO namespace of a DO-backed application. */
  namespaceId: string | undefined;
  createdAt: string;
}

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
  };
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

export class WorkersStore {
  readonly scripts = new Map<string, WorkerScript>();
  readonly containers = new Map<string, ContainerApp>();

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

  /** Every live namespace, sorted by script then class: what the DO namespaces listing shows. */
  namespaces(): { id: string; name: string; script: string; class: string; use_sqlite: boolean }[] {
    const rows = [...this.scripts.values()].flatMap((script) =>
      [...script.classes.values()]
        .filter((c) => c.state === 'live')
        .map((c) => ({
          id: c.namespaceId,
          name: `${script.name}_${c.name}`,
          script: script.name,
          class: c.name,
          use_sqlite: c.sqlite,
        })),
    );
    return rows.sort((a, b) => a.name.localeCompare(b.name));
  }

  findNamespace(id: string): DoClass | undefined {
    for (const script of this.scripts.values()) {
      for (const c of script.classes.values()) if (c.namespaceId === id && c.state === 'live') return c;
    }
    return undefined;
  }
}
