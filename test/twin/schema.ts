// The seed's schema (programmatic, `--seed` file, POST /__twin/seed): one optional list per kind of the
// registry, each of its kind's own strict entries; and how a validation issue reads.
import { z } from 'zod';
import { type KindSeedShape, TWIN_KIND_LIST } from './kinds.ts';

type SeedLists = { [Key in keyof KindSeedShape]: z.ZodOptional<z.ZodArray<KindSeedShape[Key]>> };

function seedLists(): SeedLists {
  // The list has set each kind's types aside; the keys are the kinds' own, so the shape is SeedLists.
  return Object.fromEntries(
    TWIN_KIND_LIST.map((kind) => [kind.key, z.array(kind.seedSchema).optional()]),
  ) as SeedLists;
}

export const twinSeedSchema = z.strictObject(seedLists());
export type TwinSeed = z.infer<typeof twinSeedSchema>;

/** Says which field of which input was wrong, as one line per issue. */
export function describeIssues(error: z.ZodError, where: string): string {
  return error.issues
    .map((issue) => `${where}: ${issue.path.length ? issue.path.join('.') : '(top level)'}: ${issue.message}`)
    .join('\n');
}
