// JSON answers, protocol error bodies and a request body reader that never holds more than the limit.
import { type ErrorCode, type Issue, MAX_BODY_BYTES, type QueuePlace } from '../protocol.ts';

export function json(status: number, body: unknown): Response {
  return jsonText(status, JSON.stringify(body));
}

/**
 * Every /api answer: JSON that no browser may sniff into markup (nosniff), render in a frame or run
 * anything from (a CSP that allows nothing), and that no cache keeps.
 */
export const API_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
};

/** An answer whose body is serialised already. */
export function jsonText(status: number, text: string): Response {
  return new Response(text, { status, headers: API_HEADERS });
}

/** `queue`: a waiting acquire's place, with its 409 none_available. */
export function errorResponse(
  status: number,
  code: ErrorCode,
  message: string,
  issues?: Issue[],
  queue?: QueuePlace,
): Response {
  return json(status, {
    error: {
      code,
      message,
      ...(issues === undefined ? {} : { issues }),
      ...(queue === undefined ? {} : { queue }),
    },
  });
}

const tooLarge = (): Response =>
  errorResponse(
    413,
    'too_large',
    `the request body is larger than ${MAX_BODY_BYTES} bytes; send a smaller body`,
  );

const invalidJson = (message: string): Response =>
  errorResponse(400, 'invalid_request', `the request body is not valid JSON: ${message}`, [
    { path: [], message },
  ]);

/**
 * Reads and parses a JSON body, answering 413 as soon as it passes the limit: from `content-length`
 * when the client sent one, otherwise by counting the bytes as they arrive.
 */
export async function readJsonBody(request: Request): Promise<{ body: unknown } | { response: Response }> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > MAX_BODY_BYTES) return { response: tooLarge() };
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body !== null) {
    const reader = request.body.getReader();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      size += chunk.value.byteLength;
      if (size > MAX_BODY_BYTES) {
        await reader.cancel();
        return { response: tooLarge() };
      }
      chunks.push(chunk.value);
    }
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { response: invalidJson('it is not UTF-8') };
  }
  if (text.trim() === '') return { response: invalidJson('the body is empty; send a JSON object') };
  try {
    return { body: JSON.parse(text) };
  } catch (error) {
    return { response: invalidJson(error instanceof Error ? error.message : String(error)) };
  }
}
