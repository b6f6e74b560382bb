// The same account and handlers inside the test process through msw's setupServer: nothing listens,
// the SDK keeps its real base URL, and a connection reset becomes a network error.
import Cloudflare, { APIConnectionError, APIError } from 'cloudflare';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTwinAccount, createTwinHandlers } from './twin.ts';

const account = createTwinAccount({
  seed: {
    d1: [
      {
        name: 'inproc-db',
        sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('hi')",
      },
    ],
    r2: [{ bucket: 'inproc-files' }],
  },
});
const server = setupServer(...createTwinHandlers(account));
let cf: Cloudflare;
const account_id = account.accountId;

beforeAll(() => {
  server.listen({ onUnhandledRequest: 'error' });
  // Created after listen(): the SDK captures globalThis.fetch in its constructor.
  cf = new Cloudflare({
    apiToken: account.token,
    baseURL: 'https://api.cloudflare.com/client/v4',
    maxRetries: 0,
  });
});

afterAll(() => {
  server.close();
});

describe('the twin in-process', () => {
  it('serves D1 and R2 from the shared account', async () => {
    const page = await cf.d1.database.query('inproc-db', { account_id, sql: 'SELECT body FROM notes' });
    expect(page.result[0]?.results).toEqual([{ body: 'hi' }]);
    const lifecycle = await cf.r2.buckets.lifecycle.get('inproc-files', { account_id });
    expect(lifecycle.rules?.map((r) => r.id)).toEqual(['Default Multipart Abort Rule']);
    expect(account.requests().map((r) => r.route)).toEqual([
      'POST /accounts/:account/d1/database/:id/query',
      'GET /accounts/:account/r2/buckets/:bucket/lifecycle',
    ]);
  });

  it('injects faults: a reset is a network error, a 503 is an APIError', async () => {
    account.faults.add({ route: 'GET /accounts/:account/d1/database', reset: true, times: 1 });
    account.faults.add({ route: 'GET /accounts/:account/d1/database', status: 503, times: 1 });
    await expect(cf.d1.database.list({ account_id })).rejects.toBeInstanceOf(APIConnectionError);
    const error = await cf.d1.database.list({ account_id }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(503);
    const names = [];
    for await (const db of cf.d1.database.list({ account_id })) names.push(db.name);
    expect(names).toEqual(['inproc-db']);
  });
});
