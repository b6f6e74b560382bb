// The run's GitHub: the event's pull request read from the runner's payload file as data, and no
// GitHub client at all without a token and a repository.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventPullRequestNumber, gitHubForRun } from '../../src/github/for-run.ts';

let dir: string;
const saved = process.env.GITHUB_EVENT_PATH;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'preview-gc-event-'));
});
afterEach(async () => {
  if (saved === undefined) delete process.env.GITHUB_EVENT_PATH;
  else process.env.GITHUB_EVENT_PATH = saved;
  await rm(dir, { recursive: true, force: true });
});

async function withPayload(text: string): Promise<number | undefined> {
  const path = join(dir, 'event.json');
  await writeFile(path, text);
  process.env.GITHUB_EVENT_PATH = path;
  return eventPullRequestNumber();
}

describe('the event pull request', () => {
  it("is the pull_request event's number", async () => {
    expect(await withPayload(JSON.stringify({ action: 'closed', pull_request: { number: 1603 } }))).toBe(
      1603,
    );
  });

  it('is none for any other payload, a number that is not a whole positive one, or a file that is not JSON', async () => {
    for (const text of [
      JSON.stringify({ schedule: '17 * * * *' }),
      JSON.stringify({ pull_request: { number: '12; rm -rf /' } }),
      JSON.stringify({ pull_request: { number: -3 } }),
      JSON.stringify({ pull_request: { number: 1.5 } }),
      JSON.stringify(null),
      '{ not json',
    ]) {
      expect(await withPayload(text), text).toBeUndefined();
    }
  });

  it('is none without a payload file', () => {
    process.env.GITHUB_EVENT_PATH = join(dir, 'missing.json');
    expect(eventPullRequestNumber()).toBeUndefined();
    delete process.env.GITHUB_EVENT_PATH;
    expect(eventPullRequestNumber()).toBeUndefined();
  });
});

describe("the run's GitHub", () => {
  it('is none without a token or a repository, and knows nothing before its first lookup', () => {
    expect(gitHubForRun(undefined, { nameWithOwner: 'acme/shop' })).toBeNull();
    expect(gitHubForRun('t', undefined)).toBeNull();
    const github = gitHubForRun('t', { nameWithOwner: 'acme/shop' });
    expect(github?.known().size).toBe(0);
    expect(github?.asked()).toEqual([]);
  });
});
