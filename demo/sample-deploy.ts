// The rehearsal's deploy: the demo's shop app (demo/shop), its wrangler config as production deploys it,
// copied to a scratch folder so acquire writes the slot's copy beside it, and deployed from that copy
// with the real wrangler CLI against the twin, as the deploy job of a pull request would. What it
// prints is read back from the twin, not taken from the copy: the Worker's schedules, vars and
// bindings as Cloudflare would hold them.
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Twin } from '../test/twin/twin.ts';
import { wranglerFor } from '../test/twin/wrangler-cli.ts';

const SAMPLE_APP = new URL('./shop/', import.meta.url).pathname;

export interface SampleApp {
  /** The app's own wrangler config: acquire's `wrangler-config`. */
  wranglerConfig: string;
  /** Deploys from the slot's copy acquire wrote; what the twin then holds of the slot's Worker. */
  deploy(copy: string, worker: string): Promise<DeployedPreview>;
  remove(): Promise<void>;
}

export interface DeployedPreview {
  crons: string[];
  vars: Record<string, string>;
  bindings: { type: string; name: string }[];
}

export async function prepareSampleApp(twin: Twin): Promise<SampleApp> {
  const directory = await mkdtemp(join(tmpdir(), 'preview-gc-demo-shop-'));
  await cp(SAMPLE_APP, directory, { recursive: true });
  await mkdir(join(directory, 'home'));
  const wrangler = wranglerFor(twin, join(directory, 'home'));
  return {
    wranglerConfig: join(directory, 'wrangler.jsonc'),
    async deploy(copy, worker) {
      await wrangler(directory, 'deploy', '--config', copy);
      const script = twin.account.workers.scripts.get(worker);
      const bindings = (script?.bindings ?? []) as { type: string; name: string; text?: string }[];
      return {
        crons: twin.state().workers.find((entry) => entry.name === worker)?.crons ?? [],
        vars: Object.fromEntries(
          bindings
            .filter((binding) => binding.type === 'plain_text')
            .map((binding) => [binding.name, binding.text ?? '']),
        ),
        bindings: bindings.filter((binding) => binding.type !== 'plain_text'),
      };
    },
    remove: () => rm(directory, { recursive: true, force: true }),
  };
}
