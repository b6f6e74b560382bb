// The twin's public API: startTwin() serves the msw handlers on a loopback node:http server;
// createTwinHandlers()/createTwinAccount() give the same account to an in-process msw setupServer.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getResponse, type HttpHandler } from 'msw';
import {
  newTwinAccount,
  type TwinAccount,
  type TwinAccountOptions,
  type TwinRequestRecord,
  type TwinStateDump,
} from './account.ts';
import { candidateHandlers } from './dispatch.ts';
import { fail } from './envelope.ts';
import type { FaultRule } from './faults.ts';
import { API_PREFIX } from './gate.ts';
import { createTwinHandlers } from './handlers.ts';
import { type TwinSeed, twinSeedSchema } from './schema.ts';

export type { TwinAccount, TwinRequestRecord, TwinStateDump } from './account.ts';
export type { FaultRule } from './faults.ts';
export { createTwinHandlers } from './handlers.ts';
export type { TwinSeed } from './schema.ts';
export { twinSeedSchema } from './schema.ts';

export interface TwinOptions extends TwinAccountOptions {
  port?: number;
  seed?: TwinSeed;
}

export interface Twin {
  /** http://127.0.0.1:<port>/client/v4 */
  baseUrl: string;
  /** http://127.0.0.1:<port>/__twin */
  adminUrl: string;
  accountId: string;
  token: string;
  /** The live account, for assertions that need more than the state dump (e.g. account.d1). */
  account: TwinAccount;
  seed(seed: TwinSeed): void;
  state(): TwinStateDump;
  requests(): TwinRequestRecord[];
  resetRequests(): void;
  faults: { add(rule: FaultRule): void; clear(): void };
  close(): Promise<void>;
}

export function createTwinAccount(options: TwinAccountOptions & { seed?: TwinSeed } = {}): TwinAccount {
  const account = newTwinAccount(options);
  if (options.seed) account.seed(twinSeedSchema.parse(options.seed));
  return account;
}

async function toRequest(req: IncomingMessage, origin: string): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  const method = req.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD' && chunks.length > 0;
  return new Request(new URL(req.url ?? '/', origin), {
    method,
    headers,
    body: hasBody ? Buffer.concat(chunks) : null,
  });
}

async function writeResponse(res: ServerResponse, response: Response): Promise<void> {
  if (response.type === 'error') {
    // A connection reset fault: the client sees the socket close without an answer.
    res.socket?.destroy();
    return;
  }
  const body = Buffer.from(await response.arrayBuffer());
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  headers['content-length'] = String(body.length);
  res.writeHead(response.status, headers);
  res.end(body);
}

function serveWith(handlers: HttpHandler[], origin: () => string) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    try {
      const request = await toRequest(req, origin());
      const candidates = candidateHandlers(handlers, request.method, new URL(request.url).pathname);
      const response =
        (await getResponse(candidates, request)) ??
        fail(404, 7003, `No route for the URI: ${new URL(request.url).pathname}`);
      await writeResponse(res, response);
    } catch (error) {
      await writeResponse(res, fail(500, 10002, `twin internal error: ${(error as Error).message}`));
    }
  };
}

export async function startTwin(options: TwinOptions = {}): Promise<Twin> {
  const account = createTwinAccount(options);
  const handlers = createTwinHandlers(account);
  let origin = 'http://127.0.0.1';
  const server = createServer(serveWith(handlers, () => origin));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  return {
    baseUrl: `${origin}${API_PREFIX}`,
    adminUrl: `${origin}/__twin`,
    accountId: account.accountId,
    token: account.token,
    account,
    seed: (seed) => account.seed(twinSeedSchema.parse(seed)),
    state: () => account.state(),
    requests: () => account.requests(),
    resetRequests: () => account.resetRequests(),
    faults: { add: (rule) => account.faults.add(rule), clear: () => account.faults.clear() },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
