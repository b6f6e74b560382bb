// Cloudflare refuses to delete a KV namespace that a script binds (code 10052, "namespace has
// associated scripts", docs/cloudflare.md#kv-routes). `erase: recreate` deletes the namespace after
// the Worker step has parked the slot's Worker, an upload that drops every binding but secrets, so the
// delete finds no script binding it. Without a Worker in the slot config nothing drops the binding of
// whatever Worker the deploy binds the namespace into: the config is refused when it is loaded.
import type * as z from '../../zod.ts';

export function kvRecreateNeedsWorker(
  resources: { kv?: unknown[]; workers?: unknown[] },
  ctx: z.RefinementCtx,
): void {
  if ((resources.workers ?? []).length > 0) return;
  (resources.kv ?? []).forEach((entry, index) => {
    if ((entry as { erase?: string }).erase !== 'recreate') return;
    ctx.addIssue({
      code: 'custom',
      path: ['kv', index, 'erase'],
      message:
        "recreate deletes the namespace, which Cloudflare refuses while a script binds it (code 10052, 'namespace has associated scripts'); the erase parks the slot's Worker first, dropping its bindings, so list that Worker under resources.workers, or use erase: keys",
    });
  });
}
