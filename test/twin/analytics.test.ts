// The twin's GraphQL Analytics API as a client we did not write would meet it: Cloudflare's answer shape,
// a field the schema lacks refused before anything runs, rows grouped by the dimensions asked for and
// filtered as the filtering page says, and refusals in GraphQL's own shape.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTwin, type Twin } from './twin.ts';

let twin: Twin;
const FROM = Date.parse('2026-12-01T10:00:00Z');

async function query(text: string, variables: Record<string, unknown> = {}, token = twin.token) {
  const response = await fetch(`${twin.baseUrl}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: text, variables }),
  });
  return { status: response.status, body: (await response.json()) as { data: unknown; errors: unknown } };
}

const accountQuery = (inner: string) =>
  `query Q($accountTag: string!) { viewer { accounts(filter: { accountTag: $accountTag }) { ${inner} } } }`;

beforeAll(async () => {
  twin = await startTwin();
  twin.account.analytics.add({
    script: 'app',
    namespaceId: 'ns-a',
    from: FROM,
    until: FROM + 10 * 60_000,
    perMinute: { alarms: 2, requests: 1 },
  });
  twin.account.analytics.add({
    script: 'app',
    namespaceId: 'ns-b',
    from: FROM,
    until: FROM + 5 * 60_000,
    perMinute: { requests: 3 },
  });
});

afterAll(() => twin?.close());

describe('the twin GraphQL Analytics API', () => {
  it('groups by the dimensions the query selects and answers errors: null', async () => {
    const { status, body } = await query(
      accountQuery(`byType: durableObjectsInvocationsAdaptiveGroups(limit: 100, filter: { datetime_geq: "2026-12-01T10:00:00Z", datetime_lt: "2026-12-01T11:00:00Z" }, orderBy: [sum_requests_DESC]) {
        dimensions { type } sum { requests } }`),
      { accountTag: twin.accountId },
    );
    expect(status).toBe(200);
    expect(body).toEqual({
      data: {
        viewer: {
          accounts: [
            {
              byType: [
                { dimensions: { type: 'fetch' }, sum: { requests: 25 } },
                { dimensions: { type: 'alarm' }, sum: { requests: 20 } },
              ],
            },
          ],
        },
      },
      errors: null,
    });
  });

  it('filters with _in, _geq and _lt on event times', async () => {
    const { body } = await query(
      accountQuery(`durableObjectsInvocationsAdaptiveGroups(limit: 100, filter: { namespaceId_in: ["ns-a"], type: "alarm", datetime_geq: "2026-12-01T10:05:00Z", datetime_lt: "2026-12-01T10:07:00Z" }) {
        dimensions { namespaceId datetimeFiveMinutes } sum { requests } }`),
      { accountTag: twin.accountId },
    );
    expect(body.data).toEqual({
      viewer: {
        accounts: [
          {
            durableObjectsInvocationsAdaptiveGroups: [
              {
                dimensions: { namespaceId: 'ns-a', datetimeFiveMinutes: '2026-12-01T10:05:00Z' },
                sum: { requests: 4 },
              },
            ],
          },
        ],
      },
    });
  });

  it('refuses a field the dataset does not have, before anything runs', async () => {
    const { status, body } = await query(
      accountQuery('durableObjectsPeriodicGroups(limit: 10) { dimensions { scriptName } }'),
      {
        accountTag: twin.accountId,
      },
    );
    expect(status).toBe(400);
    expect(body).toMatchObject({
      data: null,
      errors: [
        {
          message: 'Cannot query field "scriptName" on type "AccountDurableObjectsPeriodicGroupsDimensions".',
        },
      ],
    });
  });

  it('refuses a token without Account Analytics Read, and another account, in GraphQL’s shape', async () => {
    twin.account.addToken('workers-only', {
      status: 'active',
      owner: 'user',
      permissions: ['Workers Scripts Write'],
    });
    const refusal = {
      data: null,
      errors: [
        {
          message: 'not authorized for that account',
          path: ['viewer', 'accounts', 0],
          extensions: { code: 'authz', timestamp: expect.any(String) },
        },
      ],
    };
    expect(
      await query(
        accountQuery('workersInvocationsAdaptive(limit: 1) { count }'),
        { accountTag: twin.accountId },
        'workers-only',
      ),
    ).toEqual({
      status: 403,
      body: refusal,
    });
    expect(
      await query(accountQuery('workersInvocationsAdaptive(limit: 1) { count }'), {
        accountTag: 'f'.repeat(32),
      }),
    ).toEqual({
      status: 403,
      body: refusal,
    });
    expect((await query('{ viewer { budget } }', {}, 'unknown')).status).toBe(401);
  });
});
