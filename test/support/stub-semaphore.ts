// A loopback server that answers the semaphore's routes with whatever a test scripts, to see how the
// action copes with answers the real semaphore never gives (wrong types, HTML, huge bodies). It
// records every request, so a test can also assert that nothing was called at all.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StubRequest {
  method: string;
  /** Path and query. */
  path: string;
  body: string;
}

export interface StubAnswer {
  status: number;
  /** Sent as is; objects are sent as JSON. */
  body: string | unknown;
  headers?: Record<string, string>;
}

export interface StubSemaphore {
  url: string;
  requests: StubRequest[];
  /** Mutable: what the stub answers; a request it has no answer for gets a 404. */
  answer: (request: StubRequest) => StubAnswer | undefined;
  close(): Promise<void>;
}

export async function startStubSemaphore(): Promise<StubSemaphore> {
  const stub: Omit<StubSemaphore, 'url' | 'close'> = { requests: [], answer: () => undefined };
  const server = createServer(async (incoming, outgoing) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const request = {
      method: incoming.method ?? 'GET',
      path: incoming.url ?? '/',
      body: Buffer.concat(chunks).toString('utf8'),
    };
    stub.requests.push(request);
    const answer = stub.answer(request) ?? {
      status: 404,
      body: {
        error: { code: 'not_found', message: `the stub has no answer for ${request.method} ${request.path}` },
      },
    };
    outgoing.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    outgoing.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(stub, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
