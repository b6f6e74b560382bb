// A slot config as an adopter writes one for a Worker app: one resource of each kind, named after the
// app. For tests that run the README's adoption steps.
export function appSlotConfig(pool: string, app = 'app'): string {
  return `pool: ${pool}
resources:
  workers:
    - name: ${app}-{slot}
  d1:
    - name: ${app}-{slot}-db
  kv:
    - title: ${app}-{slot}-cache
  r2:
    - bucket: ${app}-{slot}-files
      expire: { id: expire-preview-files, prefix: "", after: 3h }
`;
}
