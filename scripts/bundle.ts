// Bundles the action (and the CLI) into single ESM files under dist/, every dependency inlined.
// `node scripts/bundle.ts [outdir]`; check-dist.ts calls bundle() with a temporary folder.
import { build } from 'esbuild';

export const ENTRY_POINTS = { index: 'src/index.ts' } as const;

export async function bundle(outdir: string): Promise<void> {
  await build({
    entryPoints: ENTRY_POINTS,
    outdir,
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'esm',
    minify: false,
    legalComments: 'none',
    logLevel: 'warning',
    // Some dependencies are CommonJS and call require() for Node built-ins; give the ESM bundle one.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);",
    },
  });
}

if (import.meta.main) {
  await bundle(process.argv[2] ?? 'dist');
}
