#!/usr/bin/env bash
# Today's way: the erase script a team writes for its preview slots with the wrangler CLI, one slot
# after another. `npm run bench` runs it against the Cloudflare API twin as the baseline preview-gc is
# compared with. It is deliberately what teams write, not what they should write:
#   - no lease: it erases whatever it is told to, even a slot a pull request uses right now;
#   - no fencing: nothing stops it when someone takes the slot over half-way;
#   - no 429 handling: a rate-limited command fails, `set -e` stops the script, the rest stays dirty;
#   - nothing for compute: wrangler has no command that parks a Worker or deletes Durable Object
#     classes, so alarms and agents keep running (and billing);
#   - R2 rules are written blind: `lifecycle set` replaces every rule of the bucket with the file's,
#     so the team's own rules are copied in by hand and any rule added elsewhere is lost.
#
# usage: bench/today.sh <slot>...          e.g. bench/today.sh preview-1 preview-2
# env:   CLOUDFLARE_API_TOKEN, CLOUDFLARE_ACCOUNT_ID (CLOUDFLARE_API_BASE_URL for a test double),
#        WRANGLER (how to call wrangler; default: npx wrangler)
set -euo pipefail

if [ "$#" -eq 0 ]; then
  echo "usage: $0 <slot>..." >&2
  exit 2
fi

wrangler() { ${WRANGLER:-npx wrangler} "$@"; }
# JSON in, one value out: node is there in every JavaScript repository (jq may not be).
json() { node -e "const input = JSON.parse(require('fs').readFileSync(0, 'utf8')); $1" "${@:2}"; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Every rule each bucket should have, written out by hand: the team's archive rule and Cloudflare's
# default multipart-abort rule included, or `lifecycle set` deletes them.
cat >"$work/files-rules.json" <<'JSON'
{ "rules": [
  { "id": "Default Multipart Abort Rule", "enabled": true, "conditions": { "prefix": "" },
    "abortMultipartUploadsTransition": { "condition": { "type": "Age", "maxAge": 604800 } } },
  { "id": "expire-preview-files", "enabled": true, "conditions": { "prefix": "" },
    "deleteObjectsTransition": { "condition": { "type": "Age", "maxAge": 10800 } } }
] }
JSON
cat >"$work/sandboxes-rules.json" <<'JSON'
{ "rules": [
  { "id": "team-archive-to-ia", "enabled": true, "conditions": { "prefix": "archive/" },
    "storageClassTransitions": [
      { "condition": { "type": "Age", "maxAge": 2592000 }, "storageClass": "InfrequentAccess" } ] },
  { "id": "Default Multipart Abort Rule", "enabled": true, "conditions": { "prefix": "" },
    "abortMultipartUploadsTransition": { "condition": { "type": "Age", "maxAge": 604800 } } },
  { "id": "expire-sandbox-backups", "enabled": true, "conditions": { "prefix": "backups/" },
    "deleteObjectsTransition": { "condition": { "type": "Age", "maxAge": 10800 } } }
] }
JSON

# KV commands want the namespace id; look the ids up once.
wrangler kv namespace list >"$work/namespaces.json"

for slot in "$@"; do
  echo "== $slot"
  # The shop's tables, children first (their foreign keys are ON DELETE RESTRICT).
  wrangler d1 execute "shop-$slot-db" --remote --yes --command \
    "PRAGMA defer_foreign_keys = on; DELETE FROM refunds; DELETE FROM payments; DELETE FROM order_items; DELETE FROM orders; DELETE FROM customers;"

  namespace=$(json 'process.stdout.write(input.find((ns) => ns.title === process.argv[1])?.id ?? "")' \
    "shop-$slot-cache" <"$work/namespaces.json")
  wrangler kv key list --namespace-id "$namespace" --remote \
    | json 'process.stdout.write(JSON.stringify(input.map((key) => key.name)))' >"$work/keys.json"
  wrangler kv bulk delete "$work/keys.json" --namespace-id "$namespace" --remote --force

  wrangler r2 bucket lifecycle set "shop-$slot-files" --file "$work/files-rules.json" --force
  wrangler r2 bucket lifecycle set "shop-$slot-sandboxes" --file "$work/sandboxes-rules.json" --force
done
echo "done: $# slots"
