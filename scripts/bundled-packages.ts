// Which npm package each input of an esbuild bundle comes from, shared by the licence file
// (scripts/licenses.ts) and the size report (scripts/bundle-report.ts).
import type { Metafile } from 'esbuild';

/** Inputs of preview-gc itself (src/ and the like) are counted under this name. */
export const OWN_CODE = '(preview-gc)';

const NODE_MODULES = 'node_modules/';

/**
 * The folder of the package an input path belongs to, e.g. `node_modules/@actions/core` for
 * `node_modules/@actions/core/lib/core.js`; a nested copy keeps its parent
 * (`node_modules/a/node_modules/b`). Undefined for our own code.
 */
export function packageDirOf(inputPath: string): string | undefined {
  const at = inputPath.lastIndexOf(NODE_MODULES);
  if (at === -1) return undefined;
  const rest = inputPath.slice(at + NODE_MODULES.length).split('/');
  const nameParts = rest[0]?.startsWith('@') ? 2 : 1;
  if (rest.length <= nameParts) return undefined;
  return inputPath.slice(0, at + NODE_MODULES.length) + rest.slice(0, nameParts).join('/');
}

/** The package name of a package folder: what follows its last `node_modules/`. */
export function packageNameOf(packageDir: string): string {
  return packageDir.slice(packageDir.lastIndexOf(NODE_MODULES) + NODE_MODULES.length);
}

/** Bytes each package (by folder, our own code as OWN_CODE) adds to one output of the build. */
export function bytesByPackage(output: Metafile['outputs'][string]): Map<string, number> {
  const bytes = new Map<string, number>();
  for (const [path, input] of Object.entries(output.inputs)) {
    if (input.bytesInOutput === 0) continue;
    const key = packageDirOf(path) ?? OWN_CODE;
    bytes.set(key, (bytes.get(key) ?? 0) + input.bytesInOutput);
  }
  return bytes;
}
