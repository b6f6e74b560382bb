// What a Worker upload (or settings patch) may carry, as the twin reads it: the SDK's upload
// metadata (ScriptUpdateParams.Metadata) for the fields the twin models, plus `containers` in the
// shape wrangler sends (deploy-helpers create-worker-upload-form.ts).
import { z } from 'zod';

/** The error code of a failed declarative exports reconciliation (wrangler: EXPORTS_RECONCILIATION_ERROR_CODE). */
export const EXPORTS_RECONCILIATION_ERROR = 100402;

const renameSchema = z.object({ from: z.string(), to: z.string() });
const stepSchema = z.looseObject({
  new_classes: z.array(z.string()).optional(),
  new_sqlite_classes: z.array(z.string()).optional(),
  deleted_classes: z.array(z.string()).optional(),
  renamed_classes: z.array(renameSchema).optional(),
  transferred_classes: z.array(z.unknown()).optional(),
});
const migrationsSchema = stepSchema.extend({
  old_tag: z.string().optional(),
  new_tag: z.string().optional(),
  steps: z.array(stepSchema).optional(),
});
const exportEntrySchema = z.looseObject({
  type: z.string(),
  state: z.string().optional(),
  /** The SDK's WorkersDurableObjectExport: `sqlite` or `legacy-kv`, nothing else. */
  storage: z.enum(['sqlite', 'legacy-kv']).optional(),
  renamed_to: z.string().optional(),
  container: z.string().optional(),
});
export const uploadMetadataSchema = z.looseObject({
  main_module: z.string().optional(),
  body_part: z.string().optional(),
  compatibility_date: z.string().optional(),
  compatibility_flags: z.array(z.string()).optional(),
  bindings: z.array(z.looseObject({ type: z.string() })).optional(),
  keep_bindings: z.array(z.string()).optional(),
  migrations: migrationsSchema.optional(),
  exports: z.record(z.string(), exportEntrySchema).optional(),
  containers: z
    .array(z.looseObject({ name: z.string().optional(), class_name: z.string().optional() }))
    .optional(),
  tags: z.array(z.string()).optional(),
  /** The version's annotations (SDK VersionCreateParams.Metadata.Annotations; wrangler's versions upload). */
  annotations: z.record(z.string(), z.string()).optional(),
});
export type UploadMetadata = z.infer<typeof uploadMetadataSchema>;
export type Step = z.infer<typeof stepSchema>;
export type ExportEntry = z.infer<typeof exportEntrySchema>;
