// The repository's pull requests read in pages (src/github/pull-requests.ts `list`), with the real
// Octokit client against the GitHub double: open and closed alike, with their head branch, 100 a
// page, and no page more than the question needs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGitHubPullRequests } from '../../src/github/pull-requests.ts';
import { type GitHubDouble, startGitHubDouble } from '../support/github-double.ts';

const TOKEN = 'ghs-list-4d2a9c7e11';
let github: GitHubDouble;

beforeAll(async () => {
  github = await startGitHubDouble(TOKEN);
  for (let number = 1; number <= 250; number++)
    github.pullRequests.set(number, number % 3 === 0 ? 'merged' : number % 3 === 1 ? 'open' : 'closed');
  github.heads.set(250, 'feature/a');
  github.heads.set(120, 'fix/b');
  // A fork's branch, named like a branch of ours: whoever opens a pull request names it.
  github.heads.set(249, 'staging');
  github.headRepositories.set(249, 'mallory/shop');
});

afterAll(async () => {
  await github?.close();
});

const client = () => createGitHubPullRequests({ token: TOKEN, repository: 'acme/shop', apiUrl: github.url });
const pages = () => github.requests.filter((request) => request.path === '/repos/acme/shop/pulls').length;

describe('list', () => {
  it('reads pages of 100 until the answer is enough, with each head branch and state', async () => {
    github.requests.length = 0;
    const pulls = client();
    const listed = await pulls.list({
      maxPages: 10,
      enough: (sofar) => sofar.some((pull) => pull.headRef === 'fix/b'),
    });
    // #120 is on the second page (highest numbers first): the third is not read.
    expect(pages()).toBe(2);
    expect(listed).toHaveLength(200);
    expect(listed.find((pull) => pull.number === 250)).toEqual({
      number: 250,
      title: 'Change number 250',
      state: 'open',
      headRef: 'feature/a',
    });
    expect(listed.find((pull) => pull.number === 120)).toMatchObject({ state: 'merged', headRef: 'fix/b' });
    // What was listed counts as known: the summary can name them without another call.
    expect(pulls.known().get(119)).toEqual({ number: 119, title: 'Change number 119', state: 'closed' });
  });

  it('stops at the last page, or at maxPages', async () => {
    github.requests.length = 0;
    expect(await client().list({ maxPages: 10, enough: () => false })).toHaveLength(250);
    expect(pages()).toBe(3);
    github.requests.length = 0;
    expect(await client().list({ maxPages: 1, enough: () => false })).toHaveLength(100);
    expect(pages()).toBe(1);
  });

  it("ties no branch name to a fork's pull request: closing it must not delete our `staging` preview", async () => {
    const pulls = client();
    const listed = await pulls.list({ maxPages: 1, enough: () => true });
    expect(listed.find((pull) => pull.number === 249)).toEqual({
      number: 249,
      title: 'Change number 249',
      state: 'merged',
    });
    expect(listed.some((pull) => pull.headRef === 'staging')).toBe(false);
    // cleanup's lookup of the closing pull request says no branch either.
    expect((await client().get(249)).headRef).toBeUndefined();
    expect((await client().get(250)).headRef).toBe('feature/a');
  });
});
