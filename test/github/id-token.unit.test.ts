// The job's OIDC token as the runner's token service hands it out (the service played by a fetch the
// test scripts): the request core.getIDToken makes, a clear error without id-token: write, a server's
// trouble asked again and a refusal not.
import { describe, expect, it } from 'vitest';
import { jobIdToken } from '../../src/github/id-token.ts';

const ENV = {
  ACTIONS_ID_TOKEN_REQUEST_URL: 'http://127.0.0.1:9/token?api-version=2.0',
  ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'request-token-1',
};

function service(...answers: [number, unknown][]) {
  const asked: { url: string; authorization: string | null }[] = [];
  const fetcher: typeof fetch = async (input, init) => {
    asked.push({ url: String(input), authorization: new Headers(init?.headers).get('authorization') });
    const [status, body] = answers.shift() ?? [500, {}];
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  };
  return { asked, fetcher };
}

describe('jobIdToken', () => {
  it('asks the runner for a token of the audience, with its request token, as core.getIDToken does', async () => {
    const { asked, fetcher } = service([200, { value: 'eyJ.token.sig' }]);
    expect(await jobIdToken('preview-gc', ENV, fetcher)).toBe('eyJ.token.sig');
    expect(asked).toEqual([
      {
        url: 'http://127.0.0.1:9/token?api-version=2.0&audience=preview-gc',
        authorization: 'Bearer request-token-1',
      },
    ]);
  });

  it('says what the job lacks when the runner gave it no token service', async () => {
    await expect(jobIdToken('preview-gc', {}, service().fetcher)).rejects.toThrow(
      'the runner gave the job no ACTIONS_ID_TOKEN_REQUEST_URL and ACTIONS_ID_TOKEN_REQUEST_TOKEN, which it does only with permissions: id-token: write',
    );
  });

  it("asks again after a server's trouble, and not after a refusal", async () => {
    const flaky = service([503, {}], [200, { value: 'eyJ.again.sig' }]);
    expect(await jobIdToken('preview-gc', ENV, flaky.fetcher)).toBe('eyJ.again.sig');
    expect(flaky.asked).toHaveLength(2);
    const refusing = service([403, { message: 'no' }], [200, { value: 'never' }]);
    await expect(jobIdToken('preview-gc', ENV, refusing.fetcher)).rejects.toThrow(
      "the runner's token service answered HTTP 403",
    );
    expect(refusing.asked).toHaveLength(1);
  });
});
