// How a kind's resources show in an app's wrangler config (docs/config.md#the-slots-wrangler-config):
// the references a kind finds there (a D1 binding, a queue's producer and its consumer, the Worker's
// own name), and how one is pointed at a slot's resource. Every kind's `wrangler.ts` reads its own
// part of the config with these; src/config/wrangler/ places the references at the slot config's
// templates and writes the slot's copy of the config. Shared by every kind, like name-template.ts.
import * as z from '../zod.ts';

/** A place in a wrangler config: keys and array indexes from its top level. */
export type ConfigPath = readonly (string | number)[];

/** One place of an app's wrangler config that names a resource of a kind. */
export interface WranglerReference {
  /** The object that names it: `['d1_databases', 0]`; `[]` is the top level. */
  path: ConfigPath;
  /** What the reference does there, for the kind's `point` (`producer`, `consumer`, `dead-letter`, …). */
  role: string;
  /** What `binding:` in the slot config may say to claim it: the binding's name (a queue's name too). */
  names: readonly string[];
  /**
   * The resource it points at, as the app's config names it: references with the same target are
   * one resource (a queue's producer and its consumer) and go to one template together.
   */
  target: string;
  /** How a message names it: `d1_databases[0] (binding DB)`. */
  label: string;
  /**
   * A template may claim it, but none need: unclaimed, it names something outside the slot (a
   * service binding to another Worker), which the slot config must share on purpose.
   */
  optional?: boolean;
}

/** What a kind found in the config: its references, and what it could not read, by path. */
export interface WranglerReading {
  references: WranglerReference[];
  problems: string[];
}

/**
 * The wrangler config side of a kind. `Resource` is one resource of a slot, as the config expands it.
 */
export interface KindWrangler<Resource> {
  /** The kind's references in the app's wrangler config (its top level, already parsed as data). */
  read(top: Readonly<Record<string, unknown>>): WranglerReading;
  /**
   * The fields of `reference`'s object that point it at `resource` of the slot (`id` the deploy binds,
   * where the kind has one); a field whose value is undefined is removed.
   */
  point(
    reference: WranglerReference,
    resource: Resource,
    id: string | undefined,
  ): Record<string, string | undefined>;
}

/** The path as a person reads it: `queues.consumers[1]`. */
export function pathText(path: ConfigPath): string {
  return path
    .map((part, index) => (typeof part === 'number' ? `[${part}]` : index === 0 ? part : `.${part}`))
    .join('');
}

/** A binding's name: wrangler's are identifiers; anything else is refused before it is written back. */
const bindingName = z.string().min(1).max(256);

/**
 * The entries of the array at `path` that parse with `entry`, with their index; an entry or a
 * section of another shape is a problem naming its path.
 */
export function sectionEntries<Entry>(
  top: Readonly<Record<string, unknown>>,
  path: readonly string[],
  entry: z.ZodType<Entry>,
): { entries: { index: number; entry: Entry }[]; problems: string[] } {
  let section: unknown = top;
  for (const key of path) section = (section as Record<string, unknown> | undefined)?.[key];
  if (section === undefined) return { entries: [], problems: [] };
  if (!Array.isArray(section)) return { entries: [], problems: [`${pathText(path)}: must be a list`] };
  const entries: { index: number; entry: Entry }[] = [];
  const problems: string[] = [];
  section.forEach((item: unknown, index) => {
    const parsed = entry.safeParse(item);
    if (parsed.success) entries.push({ index, entry: parsed.data });
    else {
      const issue = parsed.error.issues[0];
      const where = pathText([
        ...path,
        index,
        ...(issue?.path ?? []).map((part) => (typeof part === 'symbol' ? String(part) : part)),
      ]);
      problems.push(`${where}: ${issue?.message ?? 'not a binding this kind has'}`);
    }
  });
  return { entries, problems };
}

/** The schema of a binding entry: `binding` and the fields a kind reads, all strings, the rest kept. */
export function bindingSchema<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.looseObject({ binding: bindingName, ...shape });
}

/**
 * The `binding` key of a slot config entry: what the app's wrangler config calls the resource (a
 * binding's name; for a queue a producer's binding or the queue's name; for a Worker its `name`).
 */
export const bindingKey = z
  .string()
  .regex(/^[A-Za-z0-9_$-]{1,256}$/, 'must be the name the wrangler config uses, e.g. binding: DB')
  .optional();

/**
 * The references of a list of bindings of one kind (`d1_databases`, `kv_namespaces`, …): one per
 * entry, claimed by its `binding`, naming the resource `targetOf` reads (the binding itself when the
 * entry names none).
 */
export function bindingList<Entry extends { binding: string }>(
  top: Readonly<Record<string, unknown>>,
  section: string,
  entry: z.ZodType<Entry>,
  targetOf: (entry: Entry) => string | undefined,
): WranglerReading {
  const { entries, problems } = sectionEntries(top, [section], entry);
  return {
    problems,
    references: entries.map(({ index, entry: binding }) => ({
      path: [section, index],
      role: 'binding',
      names: [binding.binding],
      target: targetOf(binding) ?? binding.binding,
      label: `${section}[${index}] (binding ${binding.binding})`,
    })),
  };
}
