// Which pull request a holder is, compared exactly: gc releases the slot of a closed pull request's
// holder, so a holder that only looks like one of the run's repository's (another case, a prefix, a
// longer number, another repository) must be none.
import { describe, expect, it } from 'vitest';
import { pullRequestHolder, pullRequestOfHolder } from '../../src/semaphore/holders.ts';

describe('pull request holders', () => {
  it('writes pr-<n> for a token deploy and <owner>/<repo>/pr-<n> for an OIDC one', () => {
    expect(pullRequestHolder(6)).toBe('pr-6');
    expect(pullRequestHolder(6, 'acme/shop')).toBe('acme/shop/pr-6');
  });

  it.each([
    ['pr-6', 'acme/shop', 6],
    ['acme/shop/pr-6', 'acme/shop', 6],
    ['acme/shop/pr-60', 'acme/shop', 60],
    ['pr-6', undefined, 6],
  ])('reads %s in %s as pull request %i', (holder, repository, number) => {
    expect(pullRequestOfHolder(holder, repository)).toBe(number);
  });

  it.each([
    ['acme/shop/pr-6', undefined],
    ['ACME/shop/pr-6', 'acme/shop'],
    ['acme/Shop/pr-6', 'acme/shop'],
    ['acme/blog/pr-6', 'acme/shop'],
    ['xacme/shop/pr-6', 'acme/shop'],
    ['acme/shop/pr-06', 'acme/shop'],
    ['acme/shop/pr-6x', 'acme/shop'],
    ['acme/shop/pr-6/pr-7', 'acme/shop'],
    ['acme/shop/acme/shop/pr-6', 'acme/shop'],
    ['PR-6', 'acme/shop'],
    ['pr-0', 'acme/shop'],
    [' pr-6', 'acme/shop'],
  ])('reads %s in %s as no pull request of the run', (holder, repository) => {
    expect(pullRequestOfHolder(holder, repository)).toBeNull();
  });
});
