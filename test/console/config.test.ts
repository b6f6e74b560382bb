// The console's server side without a browser: what the Worker tells the page about the repository,
// and the size budget of the page's own files.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { consoleConfig } from '../../src/semaphore/worker/console.ts';

const PUBLIC = new URL('../../src/semaphore/console/public/', import.meta.url).pathname;

describe('GET /api/console/config', () => {
  it('passes on an owner/name REPOSITORY', () => {
    expect(consoleConfig('acme/shop')).toEqual({ repository: 'acme/shop' });
    expect(consoleConfig('my-org/site.web_2')).toEqual({ repository: 'my-org/site.web_2' });
  });

  it('has no repository when the var is unset or empty', () => {
    expect(consoleConfig(undefined)).toEqual({ repository: null });
    expect(consoleConfig('')).toEqual({ repository: null });
  });

  it('refuses anything else, says why, and never repeats the value', () => {
    for (const value of [
      'https://github.com/acme/shop',
      'acme/shop/pull',
      'acme',
      'acme/..',
      '-acme/shop',
      'acme/sh op',
      'javascript:alert(1)//x/y',
      `acme/${'x'.repeat(101)}`,
    ]) {
      const config = consoleConfig(value);
      expect(config.repository).toBeNull();
      expect(config.repositoryProblem).toContain('REPOSITORY');
      expect(config.repositoryProblem).not.toContain(value);
    }
  });
});

describe('the page', () => {
  it('keeps its own JavaScript and CSS under 60 KB, with no framework', async () => {
    const files = (await readdir(PUBLIC, { recursive: true })).filter((file) => /\.(?:js|css)$/.test(file));
    const sources = await Promise.all(files.map((file) => readFile(join(PUBLIC, file), 'utf8')));
    const bytes = sources.reduce((sum, source) => sum + Buffer.byteLength(source), 0);
    // 47 KB before the roles (3.2 KB: the role, boxed holders, the conditional Remove) and the spend
    // chart (about 6 KB: js/activity.js and its styles); 56,557 bytes with both.
    expect(bytes).toBeLessThan(60_000);
    // Every import is one of the page's own modules.
    for (const source of sources) {
      for (const [, target] of source.matchAll(/^import .* from '([^']+)';$/gm))
        expect(target).toMatch(/^\.\.?\//);
    }
  });
});
