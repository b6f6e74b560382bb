// src/semaphore/local.ts and serve.ts (marked dev-only in their first lines) run the semaphore in a local workerd through wrangler: dev-only
// code (tests, the bench, `npm run semaphore`). The action and the CLI ship dist/, and wrangler (tens
// of megabytes, a workerd binary) must never be pulled into it by an import. The committed bundle's
// sourcemaps list every file that went in; this reads them.
import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

async function bundledSources(): Promise<string[]> {
  const maps = (await readdir('dist')).filter((file) => file.endsWith('.js.map'));
  const sources = await Promise.all(
    maps.map(
      async (map) => (JSON.parse(await readFile(`dist/${map}`, 'utf8')) as { sources: string[] }).sources,
    ),
  );
  return sources.flat();
}

describe('the bundle (dist/)', () => {
  it('has sources to check', async () => {
    expect((await bundledSources()).some((source) => source.endsWith('src/main.ts'))).toBe(true);
  });

  it('never includes wrangler, miniflare, workerd or the dev-only semaphore runners', async () => {
    const devOnly = /node_modules\/(wrangler|miniflare|workerd)\/|src\/semaphore\/(local|serve)\.ts$/;
    expect((await bundledSources()).filter((source) => devOnly.test(source))).toEqual([]);
  });
});
