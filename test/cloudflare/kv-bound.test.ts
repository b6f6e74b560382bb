// KV `erase: recreate` under Cloudflare's rule that a namespace a script binds cannot be deleted
// (code 10052, "namespace has associated scripts"): the twin refuses such a delete, the erase still
// recreates the namespace of a slot whose Worker binds it (the Worker step parks the Worker first,
// dropping its bindings), and a slot config that lists no Worker to park is refused when it is loaded.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Cloudflare from 'cloudflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, parseSlotConfig } from '../../src/config/slot-config.ts';
import { wranglerFor } from '../twin/wrangler-cli.ts';
import { eraseInNewRun, slotResources, twinForTheseTests } from './support.ts';

const twin = twinForTheseTests();
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kv-bound-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const CONFIG = `pool: p
resources:
  workers:
    - name: app-{slot}
  kv:
    - title: app-{slot}-cache
      erase: recreate
      bound-by: wrangler-config
`;

describe('a KV namespace a Worker binds', () => {
  it('cannot be deleted while bound, and is recreated once the erase has parked the Worker', async () => {
    twin().seed({ kv: [{ title: 'app-preview-1-cache', keys: { session: 'tenant secret' } }] });
    const oldId = twin()
      .state()
      .kv.find((ns) => ns.title === 'app-preview-1-cache')?.id;
    await writeFile(join(dir, 'index.js'), 'export default { fetch() { return new Response("app"); } };\n');
    await writeFile(
      join(dir, 'wrangler.json'),
      JSON.stringify({
        name: 'app-preview-1',
        main: 'index.js',
        compatibility_date: '2026-01-01',
        kv_namespaces: [{ binding: 'CACHE', id: oldId }],
      }),
    );
    await wranglerFor(twin(), join(dir, 'home'))(dir, 'deploy', '--config', 'wrangler.json');

    // Cloudflare's answer to a delete of a bound namespace, through its SDK.
    const cf = new Cloudflare({ apiToken: twin().token, baseURL: twin().baseUrl, maxRetries: 0 });
    const refused = await cf.kv.namespaces.delete(oldId ?? '', { account_id: twin().accountId }).then(
      () => 'deleted',
      (error: unknown) => String(error),
    );
    expect(refused).toContain('namespace has associated scripts: app-preview-1');
    expect(refused).toContain('10052');

    const { result } = await eraseInNewRun(twin(), slotResources('preview-1', CONFIG));
    expect(result.status).toBe('complete');
    const after = twin()
      .state()
      .kv.filter((ns) => ns.title === 'app-preview-1-cache');
    expect(after).toHaveLength(1);
    expect(after[0]?.id).not.toBe(oldId);
    expect(after[0]?.keyCount).toBe(0);
  });

  it('refuses erase: recreate at config load when no Worker of the slot would be parked first', () => {
    let message = '';
    try {
      parseSlotConfig(CONFIG.replace('  workers:\n    - name: app-{slot}\n', ''), 'slots.yml');
    } catch (error) {
      if (error instanceof ConfigError) message = error.message;
    }
    expect(message).toContain(
      "resources.kv[0].erase: recreate deletes the namespace, which Cloudflare refuses while a script binds it (code 10052, 'namespace has associated scripts'); the erase parks the slot's Worker first, dropping its bindings, so list that Worker under resources.workers, or use erase: keys",
    );
  });
});
