// A refused token says so: the client's 401 error, and a server whose own SEMAPHORE_TOKEN can never
// match any request (whitespace, control characters) saying why. Against the real Worker in workerd.
import { describe, expect, it } from 'vitest';
import { SemaphoreClient } from '../../src/semaphore/client.ts';
import { startLocalSemaphore } from '../../src/semaphore/local.ts';
import { expectError, raw, semaphoreErrorOf, semaphoreForFile } from './helpers.ts';

const local = semaphoreForFile();

describe('a refused token', () => {
  it('is a SemaphoreError unauthorized saying the semaphore refused the token and nothing was changed', async () => {
    const wrong = 'wrong-token-7f3a';
    const client = new SemaphoreClient({ baseUrl: local.semaphore.url, token: wrong });
    const error = await semaphoreErrorOf(client.add({ type: 'refused', slug: 'preview-1' }));
    expect(error).toMatchObject({ status: 401, code: 'unauthorized', operation: 'POST /api/resources' });
    expect(error.message).toContain(
      'POST /api/resources: the semaphore refused the token (HTTP 401), so nothing was changed',
    );
    expect(error.message).toContain('Authorization: Bearer <token>');
    expect(error.message).not.toContain(wrong);
    expect(client.requestCount).toBe(1);
    await expect(local.client.list('refused')).resolves.toMatchObject({ resources: [] });
  });

  it('is refused by the client before sending when no Authorization header can carry it', async () => {
    for (const token of ['tok\ren', 'two words', '', 'jetón']) {
      const client = new SemaphoreClient({ baseUrl: local.semaphore.url, token });
      const error = await semaphoreErrorOf(client.list('any'));
      expect(error).toMatchObject({ status: undefined, code: 'unauthorized' });
      expect(error.message).toContain('nothing was sent');
      if (token !== '') expect(error.message).not.toContain(token);
      expect(client.requestCount).toBe(0);
    }
  });
});

describe('a server whose SEMAPHORE_TOKEN can never match', () => {
  const cases: [string, string, string][] = [
    ['a trailing newline', 'server-token-1234\n', 'has leading or trailing whitespace'],
    [
      'a space inside',
      'server token 1234',
      'contains whitespace, control characters or non-ASCII characters',
    ],
  ];
  it.each(cases)('with %s answers every call 401 saying why, without the token', async (_, token, why) => {
    const semaphore = await startLocalSemaphore({ token });
    try {
      for (const authorization of [`Bearer ${token.trim()}`, `Bearer ${token}`, null]) {
        const answer = await raw(semaphore, 'GET', '/api/resources?type=any', { authorization });
        const error = expectError(answer, 401, 'unauthorized');
        expect(error.message).toContain(`the server's SEMAPHORE_TOKEN ${why}`);
        expect(error.message).toContain('set it again');
        expect(answer.text).not.toContain(token.trim());
      }
      const client = new SemaphoreClient({ baseUrl: semaphore.url, token: 'server-token-1234' });
      const error = await semaphoreErrorOf(client.list('any'));
      expect(error.message).toContain(`so nothing was changed; it says: the server's SEMAPHORE_TOKEN ${why}`);
    } finally {
      await semaphore.stop();
    }
  });
});
