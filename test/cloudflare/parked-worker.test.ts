// The parked Worker: what its upload carries in each mode, and (in a real workerd) that it answers
// 503 to every request, stub Durable Object classes included.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  isIdentifier,
  isParkedCode,
  nextMigrationTag,
  PARKED_TAG,
  parkedUpload,
} from '../../src/kinds/workers/parked-worker.ts';

describe('the parked upload', () => {
  it('tombstones with a legacy migration from the current tag, and keeps container classes as stubs with their container', () => {
    const upload = parkedUpload({
      exportsMode: false,
      migrationTag: 'v2',
      tombstone: ['Agent', 'Room'],
      keep: [{ name: 'Sandbox', sqlite: true, container: 'app-preview-1-sandbox' }],
    });
    expect(upload.metadata).toEqual({
      main_module: 'parked.js',
      compatibility_date: '2025-06-01',
      bindings: [],
      keep_bindings: ['secret_text', 'secret_key'],
      tags: [PARKED_TAG],
      // As wrangler sends it: leaving it out would turn the class's containers off.
      containers: [{ name: 'app-preview-1-sandbox', class_name: 'Sandbox' }],
      migrations: { old_tag: 'v2', new_tag: 'preview-gc-1', steps: [{ deleted_classes: ['Agent', 'Room'] }] },
    });
    expect(upload.newMigrationTag).toBe('preview-gc-1');
    const code = upload.modules[0]?.content ?? '';
    expect(code).toContain('export class Sandbox extends DurableObject');
    expect(code).not.toMatch(/class (Agent|Room)\b/);
  });

  it('tombstones with exports entries in exports mode; a kept entry names only a container the upload declares', () => {
    const upload = parkedUpload({
      exportsMode: true,
      migrationTag: undefined,
      tombstone: ['Room'],
      keep: [
        { name: 'Sandbox', sqlite: true, container: 'box' },
        { name: 'Ledger', sqlite: false },
      ],
    });
    expect(upload.metadata.exports).toEqual({
      Sandbox: { type: 'durable-object', storage: 'sqlite', container: 'box' },
      Ledger: { type: 'durable-object', storage: 'legacy-kv' },
      Room: { type: 'durable-object', state: 'deleted' },
    });
    expect(upload.metadata.containers).toEqual([{ name: 'box', class_name: 'Sandbox' }]);
    expect(upload.metadata.migrations).toBeUndefined();
    expect(upload.newMigrationTag).toBeUndefined();
  });

  it('declares no containers when no kept class has one', () => {
    const upload = parkedUpload({
      exportsMode: false,
      migrationTag: 'v1',
      tombstone: [],
      keep: [{ name: 'Room', sqlite: true }],
    });
    expect(upload.metadata.containers).toBeUndefined();
  });

  it('carries no migration when there is nothing to tombstone', () => {
    const upload = parkedUpload({ exportsMode: false, migrationTag: 'v3', tombstone: [], keep: [] });
    expect(upload.metadata.migrations).toBeUndefined();
    expect(upload.modules[0]?.content).not.toContain('cloudflare:workers');
  });

  it('counts its own migration tags up and starts over after a foreign one', () => {
    expect(nextMigrationTag(undefined)).toBe('preview-gc-1');
    expect(nextMigrationTag('v7')).toBe('preview-gc-1');
    expect(nextMigrationTag('preview-gc-1')).toBe('preview-gc-2');
  });

  it('recognises its own code read back, and nothing else', () => {
    const keep = [{ name: 'Sandbox', sqlite: true }];
    const code = parkedUpload({ exportsMode: false, migrationTag: 'v1', tombstone: [], keep }).modules[0];
    const parked = [{ name: 'parked.js', text: code?.content ?? '' }];
    expect(isParkedCode(parked, keep)).toBe(true);
    // The same code with other kept classes, a second module, or a tenant's code is not parked.
    expect(isParkedCode(parked, [])).toBe(false);
    expect(isParkedCode([...parked, { name: 'extra.js', text: '' }], keep)).toBe(false);
    expect(isParkedCode([{ name: 'index.js', text: 'export default {}' }], keep)).toBe(false);
    expect(isParkedCode([], keep)).toBe(false);
  });

  it('refuses class names it cannot write into code', () => {
    expect(isIdentifier('Sandbox')).toBe(true);
    expect(isIdentifier('Sand-box')).toBe(false);
    expect(isIdentifier('class')).toBe(false);
    expect(isIdentifier('DurableObject')).toBe(false);
  });
});

describe('the parked Worker in workerd', () => {
  let directory: string;
  let dispose: (() => Promise<void>) | undefined;
  let url: string;

  beforeAll(async () => {
    process.env.CLOUDFLARE_CF_FETCH_ENABLED = 'false';
    process.env.WRANGLER_SEND_METRICS = 'false';
    directory = await mkdtemp(join(tmpdir(), 'parked-worker-'));
    const upload = parkedUpload({
      exportsMode: false,
      migrationTag: 'v1',
      tombstone: ['Room'],
      keep: [{ name: 'Sandbox', sqlite: true }],
    });
    const module = upload.modules[0];
    if (!module) throw new Error('no module');
    await writeFile(join(directory, module.name), module.content);
    await writeFile(
      join(directory, 'wrangler.json'),
      JSON.stringify({
        name: 'parked',
        main: module.name,
        compatibility_date: upload.metadata.compatibility_date,
        durable_objects: { bindings: [{ name: 'SANDBOX', class_name: 'Sandbox' }] },
        migrations: [{ tag: 'v1', new_sqlite_classes: ['Sandbox'] }],
      }),
    );
    const { unstable_startWorker } = await import('wrangler');
    const worker = await unstable_startWorker({
      config: join(directory, 'wrangler.json'),
      dev: {
        server: { hostname: '127.0.0.1', port: 0 },
        inspector: false,
        persist: false,
        watch: false,
        logLevel: 'warn',
      },
    });
    dispose = () => worker.dispose();
    url = (await worker.url).origin;
  });

  afterAll(async () => {
    await dispose?.();
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  it('answers 503 with a short text to every request', async () => {
    for (const [method, path] of [
      ['GET', '/'],
      ['POST', '/api/orders'],
      ['DELETE', '/anything?x=1'],
    ] as const) {
      const response = await fetch(`${url}${path}`, { method });
      expect(response.status).toBe(503);
      expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(await response.text()).toBe('This preview slot is parked.\n');
    }
  });
});
