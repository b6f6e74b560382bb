// Headless Chromium for the web console's browser tests, its benchmark and its screenshots, installed
// by `npm ci` alone: the dev dependency @sparticuz/chromium ships a brotli-compressed Chromium inside
// the npm package (no download at install or run time). The first launch inflates it once under
// node_modules/.cache; later launches reuse it. `node scripts/chromium.ts` inflates it and prints
// its path.
//
// Elsewhere (another processor than x86-64, or to test with another build): set PREVIEW_GC_CHROMIUM
// to a Chromium binary, e.g. Debian's (`apt-get install -y chromium`, then /usr/bin/chromium).
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { createBrotliDecompress } from 'node:zlib';
import { type Browser, chromium } from 'playwright-core';

const PACKAGE_ROOT = join(dirname(fileURLToPath(import.meta.resolve('@sparticuz/chromium'))), '..');
const CACHE = fileURLToPath(new URL('../node_modules/.cache/preview-gc-chromium/', import.meta.url));

/**
 * No sandbox (tests run as root here), no GPU, and none of Chromium's own calls home: on a machine
 * without internet they fail one after another and slow every start.
 */
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--no-default-browser-check',
];

async function packageVersion(): Promise<string> {
  const manifest = JSON.parse(await readFile(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {
    version: string;
  };
  return manifest.version;
}

/**
 * The packaged Chromium's path, inflated on first use. Parallel test files may race to inflate it:
 * each writes its own temporary file and renames it into place, so none ever runs a half-written one.
 */
export async function chromiumExecutable(): Promise<string> {
  const override = process.env.PREVIEW_GC_CHROMIUM;
  if (override !== undefined && override !== '') return override;
  const directory = join(CACHE, await packageVersion());
  const executable = join(directory, 'chromium');
  if (existsSync(executable)) return executable;
  await mkdir(directory, { recursive: true });
  const partial = `${executable}.${randomBytes(6).toString('hex')}.partial`;
  try {
    await pipeline(
      createReadStream(join(PACKAGE_ROOT, 'bin', 'chromium.br')),
      createBrotliDecompress(),
      createWriteStream(partial, { mode: 0o755 }),
    );
    await rename(partial, executable);
  } finally {
    await rm(partial, { force: true });
  }
  return executable;
}

export async function launchChromium(): Promise<Browser> {
  const executablePath = await chromiumExecutable();
  try {
    return await chromium.launch({ executablePath, args: FLAGS, headless: true });
  } catch (error) {
    throw new Error(
      `could not start Chromium (${executablePath}): ${error instanceof Error ? error.message : String(error)}\n` +
        'On a machine where the packaged Chromium does not run, install Debian’s (apt-get install -y chromium) ' +
        'and set PREVIEW_GC_CHROMIUM=/usr/bin/chromium.',
    );
  }
}

if (import.meta.main) process.stdout.write(`${await chromiumExecutable()}\n`);
