// Where a run was started: a workflow step (the action) or a terminal (the CLI). Messages that tell a
// person what to change name it the way it is set there (`input 'pool'` or `--pool`), and say how to
// try again there, so nobody at a terminal is told to edit a workflow.
import { SemaphoreError } from '../semaphore/client.ts';
import { type DescribeInput, describeActionInput } from './settings.ts';

/** The secret (workflow) or environment variable (terminal) that carries each credential input. */
export const SECRET_OF_INPUT: Readonly<Record<string, string>> = {
  'semaphore-url': 'SEMAPHORE_URL',
  'semaphore-token': 'SEMAPHORE_TOKEN',
  'cloudflare-api-token': 'CLOUDFLARE_API_TOKEN',
  'cloudflare-account-id': 'CLOUDFLARE_ACCOUNT_ID',
  'cloudflare-api-base-url': 'CLOUDFLARE_API_BASE_URL',
};

export interface RunPlace {
  /** How a setting is named where the user sets it: `input 'pool'`, `--pool`. */
  describeInput: DescribeInput;
  /** Where a credential comes from: "input 'semaphore-token' (the SEMAPHORE_TOKEN secret)". */
  credential(input: string): string;
  /** What to do once a fix is in, ending a sentence: "run the preview-gc workflow again". */
  rerun: string;
}

/** The secret a workflow of the README gives an input: gc and cleanup sign in with the gc role's token. */
const WORKFLOW_SECRET_OF_INPUT: Readonly<Record<string, string>> = {
  ...SECRET_OF_INPUT,
  'semaphore-token': 'SEMAPHORE_GC_TOKEN',
};

export const ACTION_PLACE: RunPlace = {
  describeInput: describeActionInput,
  credential: (input) => {
    const secret = WORKFLOW_SECRET_OF_INPUT[input];
    return secret === undefined
      ? describeActionInput(input)
      : `${describeActionInput(input)} (the ${secret} secret in the README's workflows)`;
  },
  rerun: 'run the preview-gc workflow again',
};

/**
 * The action as the place of a run of `command`: acquire runs in the deploy workflow (and its e2e
 * job), not in the preview-gc workflow, so a fix there ends in re-running that job.
 */
export function actionPlace(command: string): RunPlace {
  return command === 'acquire' ? { ...ACTION_PLACE, rerun: 're-run the deploy job' } : ACTION_PLACE;
}

/**
 * The semaphore refused the token (401), or the client could not send it: the client's message says
 * so and that nothing was changed; this adds where the token comes from here and what it must be.
 */
export function semaphoreRefusedToken(error: unknown, place: RunPlace): string | undefined {
  if (!(error instanceof SemaphoreError) || error.code !== 'unauthorized') return undefined;
  if (error.fetchedToken)
    return `${error.message}. The job signs in with its OIDC token (semaphore-auth: oidc): the Worker must take this repository's tokens (SEMAPHORE_OIDC_REPOSITORIES) for the same audience (SEMAPHORE_OIDC_AUDIENCE and the input semaphore-audience); see docs/semaphore.md.`;
  return `${error.message}. The token comes from ${place.credential('semaphore-token')}: it must be one of the tokens set on the semaphore Worker with wrangler secret put (SEMAPHORE_GC_TOKEN for gc and cleanup, SEMAPHORE_READ_TOKEN to read, SEMAPHORE_TOKEN the admin's; docs/semaphore.md).`;
}
