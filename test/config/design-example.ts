// The slot config example of docs/design.md#the-slot-config-file, as the tests use it.
export const DESIGN_EXAMPLE = `pool: preview-slot            # semaphore type
resources:                    # {slot} = slug, {n} = the number in the slug
  workers:
    - name: app-{slot}
      durable-objects: park   # park (tombstone every DO class) | keep
  d1:
    - name: app-{slot}-db
      erase: rows             # rows: delete every row, keep schema and d1_migrations | drop (the default)
  kv:
    - title: app-{slot}-cache
  r2:
    - bucket: app-{slot}-files
      expire: { id: expire-preview-files, prefix: "", after: 3h }
    - bucket: app-{slot}-sandboxes
      expire: { id: expire-sandbox-backups, prefix: "backups/", after: 3h }
protect: ["*-prd*", "*-prod*", "*-production*"]
`;
