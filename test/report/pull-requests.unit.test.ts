import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/report/model.ts';
import { labelPullRequests } from '../../src/report/pull-requests.ts';
import { renderSummary } from '../../src/report/summary.ts';
import { runReport, slotReport } from '../support/report-fixtures.ts';

/** A loopback stand-in for the GitHub REST API's "get a pull request". */
const PULLS: Record<string, unknown> = {
  '1588': { title: 'Cart <b>rework</b>', state: 'closed', merged_at: '2026-11-29T10:00:00Z' },
  '1601': { title: 'Checkout copy', state: 'open', merged_at: null },
  '1602': { unexpected: true },
};
let server: Server;
let apiUrl: string;
const seen: { path: string; authorization: string | undefined }[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    seen.push({ path: request.url ?? '', authorization: request.headers.authorization });
    const number = /\/pulls\/(\d+)$/.exec(request.url ?? '')?.[1] ?? '';
    const body = PULLS[number];
    response.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body ?? { message: 'Not Found' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function report(holders: string[]): RunReport {
  return runReport({
    poolAfter: null,
    slots: holders.map((holder, i) =>
      slotReport({ slug: `preview-${i + 1}`, previousHolder: holder, erase: null }),
    ),
  });
}

describe('labelPullRequests', () => {
  it('adds title and state of each pull request holder, escaped in the summary', async () => {
    const labelled = await labelPullRequests(
      report(['pr-1588', 'pr-1601', 'pr-1602', 'pr-404', 'manual-ana']),
      {
        token: 'gh-token',
        apiUrl,
      },
    );
    expect(labelled.pullRequests).toEqual({
      '1588': { title: 'Cart <b>rework</b>', state: 'merged' },
      '1601': { title: 'Checkout copy', state: 'open' },
    });
    expect(seen.map((request) => request.path).sort()).toEqual([
      '/repos/acme/shop/pulls/1588',
      '/repos/acme/shop/pulls/1601',
      '/repos/acme/shop/pulls/1602',
      '/repos/acme/shop/pulls/404',
    ]);
    expect(seen.every((request) => request.authorization === 'Bearer gh-token')).toBe(true);
    const markdown = renderSummary(labelled);
    expect(markdown).toContain(
      '[pr-1588](https://github.com/acme/shop/pull/1588) Cart &lt;b&gt;rework&lt;/b&gt; (merged)',
    );
    expect(markdown).toContain('[pr-404](https://github.com/acme/shop/pull/404) |');
  });

  it('asks nothing without a token', async () => {
    seen.length = 0;
    const plain = report(['pr-1588']);
    expect(await labelPullRequests(plain, { token: undefined, apiUrl })).toBe(plain);
    expect(seen).toEqual([]);
  });

  it('keeps the report as it was when GitHub cannot be reached', async () => {
    const plain = report(['pr-1588']);
    expect(await labelPullRequests(plain, { token: 'gh-token', apiUrl: 'http://127.0.0.1:9' })).toBe(plain);
  });
});
