// Fails when the committed dist/ is not what the source builds: the action runs dist/, not src/.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundle } from './bundle.ts';

export async function staleDistFiles(distDir: string): Promise<string[]> {
  const fresh = await mkdtemp(join(tmpdir(), 'preview-gc-dist-'));
  try {
    await bundle(fresh);
    const names = new Set([...(await listFiles(distDir)), ...(await listFiles(fresh))]);
    const stale: string[] = [];
    for (const name of [...names].sort()) {
      const [committed, built] = await Promise.all([
        readOrNull(join(distDir, name)),
        readOrNull(join(fresh, name)),
      ]);
      if (committed === null || built === null || !committed.equals(built)) stale.push(name);
    }
    return stale;
  } finally {
    await rm(fresh, { recursive: true, force: true });
  }
}

async function listFiles(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch {
    return [];
  }
}

async function readOrNull(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch {
    return null;
  }
}

if (import.meta.main) {
  const stale = await staleDistFiles('dist');
  if (stale.length > 0) {
    console.error(
      `dist/ is stale (${stale.join(', ')}): run 'npm run bundle' and commit dist/ with the change.`,
    );
    process.exit(1);
  }
  console.log('dist/ matches the source.');
}
