// A loopback proxy in front of the real semaphore, for the moments a test must step in between the
// action and the semaphore: "someone re-leases this slot right after the listing", or a fault on one
// route. The semaphore behind it is the real Worker; the proxy only forwards, delays or answers.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  method: string;
  /** Path and query, e.g. `/api/resources?type=preview-slot`. */
  path: string;
  body: string;
}

/** What to do instead of forwarding a request. */
export type Replacement =
  | { kind: 'answer'; status: number; body: string; headers?: Record<string, string> }
  | { kind: 'reset' }
  | { kind: 'hang' };

/**
 * A replacement, or `after-forward`: the semaphore does the work, and then its answer is lost or
 * garbled on the way back (the caller cannot know whether the call took effect).
 */
export type Intervention = Replacement | { kind: 'after-forward'; answer: Replacement };

export interface ProxyHooks {
  /** Decide per request; undefined forwards it unchanged. */
  intervene?: (request: ProxiedRequest) => Intervention | undefined;
  /** Runs after the semaphore answered and before the answer goes back to the caller. */
  afterUpstream?: (request: ProxiedRequest, status: number) => Promise<void>;
}

export interface SemaphoreProxy {
  url: string;
  requests: ProxiedRequest[];
  /** Mutable: a test sets or clears `intervene` and `afterUpstream` between runs. */
  hooks: ProxyHooks;
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startSemaphoreProxy(
  targetUrl: string,
  hooks: ProxyHooks = {},
): Promise<SemaphoreProxy> {
  const requests: ProxiedRequest[] = [];
  const hanging = new Set<ServerResponse>();

  const server = createServer(async (incoming, outgoing) => {
    const request: ProxiedRequest = {
      method: incoming.method ?? 'GET',
      path: incoming.url ?? '/',
      body: await readBody(incoming),
    };
    requests.push(request);
    const intervention = hooks.intervene?.(request);
    const replace = (replacement: Replacement): void => {
      if (replacement.kind === 'reset') return void incoming.socket.destroy();
      if (replacement.kind === 'hang') return void hanging.add(outgoing);
      outgoing.writeHead(replacement.status, {
        'content-type': 'application/json',
        ...replacement.headers,
      });
      outgoing.end(replacement.body);
    };
    if (intervention !== undefined && intervention.kind !== 'after-forward') return replace(intervention);
    const headers = new Headers();
    for (const [name, value] of Object.entries(incoming.headers)) {
      if (typeof value === 'string' && name !== 'host' && name !== 'content-length') headers.set(name, value);
    }
    // The proxy reads the answer whole anyway: unzipping it would only cost the test time.
    headers.set('accept-encoding', 'identity');
    const upstream = await fetch(new URL(request.path, targetUrl), {
      method: request.method,
      headers,
      ...(request.method === 'GET' || request.method === 'HEAD' ? {} : { body: request.body }),
    });
    const answer = await upstream.text();
    if (intervention?.kind === 'after-forward') return replace(intervention.answer);
    await hooks.afterUpstream?.(request, upstream.status);
    outgoing.writeHead(upstream.status, {
      'content-type': upstream.headers.get('content-type') ?? 'application/json',
    });
    outgoing.end(answer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    hooks,
    close: async () => {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
