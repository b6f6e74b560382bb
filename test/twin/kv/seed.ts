// A KV namespace in a seed: literal keys, or `count` generated ones; and the seed that makes a slot's
// namespace exist with keys in it, as a preview's cache would hold them.
import { z } from 'zod';
import type { KvStore } from './store.ts';

export const kvSeedSchema = z.strictObject({
  title: z.string().min(1),
  keys: z.record(z.string(), z.string()).optional(),
  /** `count` keys named `<prefix><n>` (n zero-padded), value `v<n>`. */
  generate: z
    .strictObject({ prefix: z.string(), count: z.number().int().nonnegative().max(1_000_000) })
    .optional(),
});
export type KvSeed = z.infer<typeof kvSeedSchema>;

export function seedKv(namespaces: KvStore, entry: KvSeed): void {
  const ns = namespaces.findByTitle(entry.title) ?? namespaces.create(entry.title);
  const encoder = new TextEncoder();
  for (const [name, value] of Object.entries(entry.keys ?? {}))
    ns.put(name, { value: encoder.encode(value) });
  if (entry.generate) {
    const width = String(entry.generate.count).length;
    for (let n = 0; n < entry.generate.count; n += 1) {
      const suffix = String(n).padStart(width, '0');
      ns.put(`${entry.generate.prefix}${suffix}`, { value: encoder.encode(`v${suffix}`) });
    }
  }
}

const KEYS = 50;

/** A slot's KV namespace as preview-gc's slot config expands it (the fields the seed reads). */
export interface KvSlotResource {
  title: string;
}

export function kvSeedFor(resource: KvSlotResource): KvSeed[] {
  return [{ title: resource.title, generate: { prefix: 'cache:', count: KEYS } }];
}
