// The Worker Previews of a sweep, as the job summary and the terminal show them: a row per preview
// with its pull request, last deployment, action and why, what it shares with production under it;
// a preview's name is Cloudflare's answer, shown escaped and on one line.
import { describe, expect, it } from 'vitest';
import { renderTerminalReport } from '../../src/cli/terminal-report.ts';
import type { WorkerPreviewsSweep } from '../../src/report/model.ts';
import { renderSummary } from '../../src/report/summary.ts';
import { runReport } from '../support/report-fixtures.ts';

const SWEEP: WorkerPreviewsSweep = {
  worker: 'shop',
  previews: [
    {
      name: 'feature/cart',
      pullRequest: { number: 41, state: 'open' },
      lastDeployment: '2026-12-05T10:00:00.000Z',
      action: 'kept',
      why: 'pull request #41 is open',
      sharesWithProduction: ["D1 database 'db-1' (bound as DB; production binds it as DB)"],
    },
    {
      name: 'pr-43',
      pullRequest: { number: 43, state: 'merged' },
      lastDeployment: null,
      action: 'deleted',
      why: 'pull request #43 is merged',
      sharesWithProduction: [],
    },
    {
      name: 'x|<b>\n::warning::y',
      pullRequest: null,
      lastDeployment: null,
      action: 'kept',
      why: 'tied to no pull request; deleted once idle past the ttl of 3d',
      sharesWithProduction: [],
    },
  ],
};

describe('Worker Previews in the report', () => {
  const report = runReport({ command: 'gc', workerPreviews: [SWEEP] });

  it('the summary has a table per Worker, with what a preview shares with production', () => {
    const summary = renderSummary(report);
    expect(summary).toContain('### Worker Previews of `shop`');
    expect(summary).toContain('| Preview | Pull request | Last deployment | Action | Why |');
    expect(summary).toContain(
      "| `feature/cart` | [pr-41](https://github.com/acme/shop/pull/41) (open) | 2026-12-05T10:00:00.000Z | ⏭️ kept | pull request \\#41 is open<br>⚠️ shares with production: D1 database 'db-1' (bound as DB; production binds it as DB) |",
    );
    expect(summary).toContain(
      '| `pr-43` | [pr-43](https://github.com/acme/shop/pull/43) (merged) | – | ✅ deleted | pull request \\#43 is merged |',
    );
    // A name cannot break the table or start a line.
    const row = summary.split('\n').find((line) => line.includes('tied to no pull request')) ?? '';
    expect(row.split(' | ')).toHaveLength(5);
    expect(summary).not.toMatch(/^::warning/m);
  });

  it('the terminal shows the same rows, and status its counts', () => {
    const text = renderTerminalReport(report, { color: false });
    expect(text).toContain('Worker Previews of shop');
    expect(text).toMatch(/feature\/cart\s+#41 \(open\)\s+2026-12-05T10:00:00.000Z\s+kept/);
    expect(text).toContain("shares with production: D1 database 'db-1'");
    expect(text).toContain('x|<b>\\n::warning::y');
    const status = renderTerminalReport(
      runReport({ command: 'status', workerPreviewCounts: [{ worker: 'shop', previews: 3 }] }),
      { color: false },
    );
    expect(status).toContain('Worker Previews (gc sweeps them): shop 3');
  });
});
