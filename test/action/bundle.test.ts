import { spawnSync } from 'node:child_process';
import { appendFile, cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { staleDistFiles } from '../../scripts/check-dist.ts';

/** The environment of a runner step that was given no inputs at all. */
function envWithoutInputs(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('INPUT_')));
}

describe('the bundled action', () => {
  it('fails with every missing input named and no stack trace', () => {
    const result = spawnSync(process.execPath, ['dist/index.js'], {
      env: envWithoutInputs(),
      encoding: 'utf8',
    });
    const output = result.stdout + result.stderr;
    expect(result.status).not.toBe(0);
    for (const input of [
      'semaphore-url',
      'semaphore-token',
      'cloudflare-api-token',
      'cloudflare-account-id',
    ]) {
      expect(output).toContain(`input '${input}' is required`);
    }
    expect(output).not.toMatch(/^\s+at /m);
  });

  it('runs on Node 24, the runtime action.yml declares', () => {
    expect(process.versions.node.split('.')[0]).toBe('24');
  });
});

describe('check-dist', () => {
  it('passes on the committed dist/ and fails once dist/ and the source disagree', async () => {
    expect(await staleDistFiles('dist')).toEqual([]);
    const tampered = await mkdtemp(join(tmpdir(), 'preview-gc-tampered-'));
    try {
      await cp('dist', tampered, { recursive: true });
      await appendFile(join(tampered, 'index.js'), '\n// edited by hand\n');
      expect(await staleDistFiles(tampered)).toEqual(['index.js']);
    } finally {
      await rm(tampered, { recursive: true, force: true });
    }
  });
});
