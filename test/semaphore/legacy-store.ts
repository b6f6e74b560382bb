// What an older semaphore left in its store: holders it took as any text (`рr-1601` with a Cyrillic
// р, a trailing no-break space, a sentence), which today's Worker refuses to write but still serves
// as stored. The test writes them into a stopped local semaphore's persisted Durable Object files
// (wrangler's dev state: `v3/do/<worker>-PoolObject/*.sqlite`), then starts it again on them.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

/**
 * Replaces holders in every pool's store under `persistDir` (the semaphore must be stopped): each
 * key of `holders` (a valid holder the test leased as) becomes its value, in the slots, their leases
 * and the history.
 */
export async function storeLegacyHolders(persistDir: string, holders: Record<string, string>): Promise<void> {
  const folder = join(persistDir, 'v3', 'do', 'preview-gc-semaphore-PoolObject');
  const stores = (await readdir(folder)).filter(
    (file) => file.endsWith('.sqlite') && file !== 'metadata.sqlite',
  );
  if (stores.length === 0) throw new Error(`no pool store under ${folder}`);
  for (const file of stores) {
    const db = new DatabaseSync(join(folder, file));
    try {
      for (const [valid, legacy] of Object.entries(holders)) {
        for (const column of ['holder', 'last_holder', 'lease_previous_holder'])
          db.prepare(`UPDATE slots SET ${column} = ? WHERE ${column} = ?`).run(legacy, valid);
        db.prepare('UPDATE events SET holder = ? WHERE holder = ?').run(legacy, valid);
        db.prepare('UPDATE events SET detail = replace(detail, ?, ?)').run(
          JSON.stringify(valid),
          JSON.stringify(legacy),
        );
      }
    } finally {
      db.close();
    }
  }
}
