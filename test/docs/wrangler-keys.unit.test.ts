// docs/config.md's table of every wrangler key is the one the code uses (wrangler-keys.ts): a key the
// code refuses or drops is never documented as kept. PREVIEW_GC_WRITE_CONFIG_DOC=1 rewrites the table.
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type KeyTreatment, WRANGLER_KEYS } from '../../src/config/wrangler/wrangler-keys.ts';

const DOC_PATH = fileURLToPath(new URL('../../docs/config.md', import.meta.url));
const START =
  '<!-- wrangler-keys: generated from src/config/wrangler/wrangler-keys.ts; test/docs/wrangler-keys.unit.test.ts keeps it true -->';
const END = '<!-- /wrangler-keys -->';

const MEANING: Record<KeyTreatment, string> = {
  kept: 'kept as written',
  placed: "pointed at the slot's resources",
  replaced: "the slot's value",
  dropped: 'left out',
  outside: 'refused unless the preview block gives its own or `deploy.shared` names it',
};

function table(): string {
  const rows = (Object.keys(MEANING) as KeyTreatment[]).map((treatment) => {
    const keys = Object.keys(WRANGLER_KEYS)
      .filter((key) => WRANGLER_KEYS[key] === treatment)
      .sort()
      .map((key) => `\`${key}\``);
    return `| *${treatment}*: ${MEANING[treatment]} | ${keys.join(', ')} |`;
  });
  return ['| What the copy does | Keys |', '| --- | --- |', ...rows].join('\n');
}

describe("docs/config.md's table of wrangler keys", () => {
  it('lists every key with what the code does with it', async () => {
    const doc = await readFile(DOC_PATH, 'utf8');
    const [before, rest] = doc.split(START);
    const after = rest?.split(END)[1];
    if (before === undefined || after === undefined) throw new Error(`${DOC_PATH} lacks the table markers`);
    const current = `${before}${START}\n${table()}\n${END}${after}`;
    if (process.env.PREVIEW_GC_WRITE_CONFIG_DOC === '1') await writeFile(DOC_PATH, current);
    expect(doc, 'run with PREVIEW_GC_WRITE_CONFIG_DOC=1 to update docs/config.md').toBe(current);
  });
});
