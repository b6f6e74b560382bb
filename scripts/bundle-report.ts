// `npm run bundle:report [-- --top N]`: what each package costs in dist/index.js and dist/cli.js, from
// esbuild's metafile of a fresh build (into a temporary folder; dist/ is left alone).
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Metafile } from 'esbuild';
import { renderTable } from '../bench/table.ts';
import { bundle, ENTRY_POINTS, type EntryName } from './bundle.ts';
import { bytesByPackage, OWN_CODE, packageNameOf } from './bundled-packages.ts';
import { LICENSES_FILE } from './licenses.ts';

export interface PackageCost {
  name: string;
  bytes: number;
}

type Output = Metafile['outputs'][string];

/** The packages of the outputs of one entry, biggest first (our own code as one row). */
export function packageCosts(outputs: readonly Output[]): PackageCost[] {
  const bytes = new Map<string, number>();
  for (const output of outputs) {
    for (const [dir, size] of bytesByPackage(output)) bytes.set(dir, (bytes.get(dir) ?? 0) + size);
  }
  return [...bytes]
    .map(([dir, size]) => ({ name: dir === OWN_CODE ? OWN_CODE : packageNameOf(dir), bytes: size }))
    .sort((a, b) => b.bytes - a.bytes || a.name.localeCompare(b.name));
}

const kib = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });

function formatKiB(bytes: number): string {
  return `${kib.format(bytes / 1024)} KiB`;
}

function share(bytes: number, of: number): string {
  return `${((bytes / of) * 100).toFixed(1)} %`;
}

function costTable(outputs: readonly Output[], top: number): string {
  const total = outputs.reduce((sum, output) => sum + output.bytes, 0);
  const costs = packageCosts(outputs);
  const rows = costs
    .slice(0, top)
    .map((cost) => [cost.name, formatKiB(cost.bytes), share(cost.bytes, total)]);
  const rest = costs.slice(top);
  if (rest.length > 0) {
    const restBytes = rest.reduce((sum, cost) => sum + cost.bytes, 0);
    rows.push([`${rest.length} more`, formatKiB(restBytes), share(restBytes, total)]);
  }
  return renderTable(['package', 'bytes', 'share'], rows);
}

async function fileTable(outdir: string, name: string, outputs: [string, Output][]): Promise<string> {
  const rows = await Promise.all(
    outputs.map(async ([path, output]) => {
      const file = basename(path);
      const map = await stat(join(outdir, `${file}.map`));
      const role = file === `${name}.js` ? 'entry' : 'chunk';
      return [`dist/${file}`, role, formatKiB(output.bytes), formatKiB(map.size)];
    }),
  );
  return renderTable(['file', 'role', 'bytes', 'sourcemap'], rows);
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { top: { type: 'string', default: '10' } } });
  const top = Number.parseInt(values.top, 10);
  const outdir = await mkdtemp(join(tmpdir(), 'preview-gc-bundle-report-'));
  try {
    const metafiles = await bundle(outdir);
    for (const [name, metafile] of Object.entries(metafiles)) {
      const outputs = Object.entries(metafile.outputs).filter(([path]) => path.endsWith('.js'));
      const total = outputs.reduce((sum, [, output]) => sum + output.bytes, 0);
      console.log(`${ENTRY_POINTS[name as EntryName]}: ${formatKiB(total)} in ${outputs.length} files`);
      console.log(`${await fileTable(outdir, name, outputs)}\n`);
      console.log(
        `${costTable(
          outputs.map(([, output]) => output),
          top,
        )}\n`,
      );
    }
    console.log(`dist/${LICENSES_FILE}: ${formatKiB((await stat(join(outdir, LICENSES_FILE))).size)}`);
  } finally {
    await rm(outdir, { recursive: true, force: true });
  }
}
