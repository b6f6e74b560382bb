// Leaving a pool's queue (issue 31): `POST /api/queue/leave`, sent by a waiter whose job was cancelled,
// so the waiters behind it move up at once instead of after a heartbeat (docs/semaphore-protocol.md).
// The queue's place and listing are parts of older answers and stay in protocol.ts.
import * as z from '../zod.ts';
import { lazySchema } from './lazy-schema.ts';
import { holderSchema, poolTypeSchema } from './protocol.ts';

export const LEAVE_QUEUE_ROUTE = '/api/queue/leave';

export const leaveQueueRequestSchema = lazySchema(() =>
  z.strictObject({ type: poolTypeSchema, holder: holderSchema }),
);

/** `left`: the holder was waiting and is no longer; false when it was not in the queue (a repeat). */
export const leaveQueueAnswerSchema = lazySchema(() => z.object({ left: z.boolean() }));

export type LeaveQueueRequest = z.infer<typeof leaveQueueRequestSchema>;
export type LeaveQueueAnswer = z.infer<typeof leaveQueueAnswerSchema>;
