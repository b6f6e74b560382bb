// One request of the D1 erase, and the passenger it may carry: the inventory's reads (inventory.ts),
// which ride at the end of the erase's own requests so that reading back what is left costs no request
// of its own. The erase only carries them; it never reads their answers.
import type { EraseContext } from '../step.ts';
import { type D1Statement, type D1StatementResult, queryD1 } from './api.ts';
import { MAX_STATEMENTS } from './plan.ts';

/** Reads that ride in the erase's requests: given, answered, or told they missed a change. */
export interface Passenger {
  /**
   * The reads to carry at the end of the next request that may be the erase's last; `afterWrites`:
   * that request, or one before it, changes the database before they run; `room`: the statements
   * the request has left for them.
   */
  board(afterWrites: boolean, room: number): D1Statement[];
  /** Their answers, in their order. */
  alight(results: readonly D1StatementResult[]): void;
  /** A request changed the database without carrying them. */
  missed(): void;
}

interface SendOptions {
  /** The request may change the database. */
  writes: boolean;
  /** The erase may be finished once it is done: the passenger boards. */
  mayBeLast: boolean;
}

/** Sends the erase's statements as one request (one transaction); answers theirs only. */
export type Sender = (
  statements: readonly D1Statement[],
  options: SendOptions,
) => Promise<D1StatementResult[]>;

export function senderFor(
  context: EraseContext,
  databaseId: string,
  passenger: Passenger | undefined,
): Sender {
  let wrote = false;
  return async (statements, { writes, mayBeLast }) => {
    wrote ||= writes;
    const riders =
      mayBeLast && passenger !== undefined ? passenger.board(wrote, MAX_STATEMENTS - statements.length) : [];
    const carried = statements.length + riders.length <= MAX_STATEMENTS ? riders : [];
    const results = await queryD1(context.api, databaseId, [...statements, ...carried]);
    if (carried.length > 0) passenger?.alight(results.slice(statements.length));
    else if (writes) passenger?.missed();
    return results.slice(0, statements.length);
  };
}
