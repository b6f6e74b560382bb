// One D1 database in an in-process twin, erased through the real erase (eraseSlot, the D1 kind's
// operations, the SDK's requests) and read back by the oracle from a copy of the twin's SQLite file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PacerOptions } from '../../src/cloudflare/pacer.ts';
import { parseSlotConfig, resourcesForSlot } from '../../src/config/slot-config.ts';
import { eraseInNewRun, type InProcessTwin } from '../cloudflare/in-process-twin.ts';
import type { D1Store } from '../twin/d1/store.ts';
import { leftIn } from './oracle.ts';

export function d1Config(mode: 'rows' | 'drop' = 'rows'): string {
  return `pool: p\nresources:\n  d1:\n    - name: zoo-{slot}-db\n      erase: ${mode}\n`;
}

/** Seeds the slot's database with `sql` (a fresh database per slug). */
export function seedDatabase(env: InProcessTwin, slug: string, sql: string): string {
  const name = `zoo-${slug}-db`;
  env.twin.seed({ d1: [{ name, sql }] });
  return name;
}

/** What the oracle finds in the database now, from the twin's D1 store (in-process or `twin.account.d1`). */
export function oracle(databases: D1Store, name: string, mode: 'rows' | 'drop' = 'rows'): string[] {
  const database = databases.find(name);
  if (database === undefined) throw new Error(`no database ${name} in the twin`);
  const dir = mkdtempSync(join(tmpdir(), 'preview-gc-oracle-'));
  try {
    const path = join(dir, 'copy.sqlite');
    database.copyTo(path);
    return leftIn(path, mode);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One gc run's erase of the slot's database. */
export async function eraseDatabase(
  env: InProcessTwin,
  slug: string,
  options: { mode?: 'rows' | 'drop'; pacer?: PacerOptions } = {},
) {
  const resources = resourcesForSlot(parseSlotConfig(d1Config(options.mode), 'zoo.yml'), slug);
  const run = await eraseInNewRun(env, resources, options.pacer ? { pacer: options.pacer } : {});
  const [step] = run.result.steps;
  if (step === undefined) throw new Error('the erase had no D1 step');
  return { ...run, step };
}
