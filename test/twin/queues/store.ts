// The twin's queues (docs/twin.md#queues): each with the messages sent to it and its last purge. A purge
// takes `purgeDurationMs` of the account's clock and then removes the messages that were in the queue
// when it started; messages sent during a purge stay (stand-ins both).
import { randomUUID } from 'node:crypto';

export interface TwinQueueSettings {
  delivery_delay: number;
  delivery_paused: boolean;
  message_retention_period: number;
}

export interface TwinMessage {
  id: string;
  body: unknown;
  contentType: 'text' | 'json';
  sentAt: number;
}

interface Purge {
  startedAt: number;
  endsAt: number;
  /** The messages in the queue when the purge started: the ones it removes. */
  ids: ReadonlySet<string>;
}

/** A Worker that consumes the queue (`wrangler deploy` of a config with `queues.consumers`). */
export interface TwinConsumer {
  id: string;
  script: string;
  deadLetterQueue: string;
  settings: Record<string, number | undefined>;
  createdOn: string;
}

export interface TwinQueue {
  id: string;
  name: string;
  createdOn: string;
  modifiedOn: string;
  settings: TwinQueueSettings;
  messages: TwinMessage[];
  consumers: TwinConsumer[];
  lastPurge?: Purge;
}

/** Queue names the twin takes (a stand-in, docs/twin.md#queues). */
export const QUEUE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/;

/** A new queue's settings when the create request names none (stand-in: 4 days of retention). */
const DEFAULT_SETTINGS: TwinQueueSettings = {
  delivery_delay: 0,
  delivery_paused: false,
  message_retention_period: 345_600,
};

export class QueueStore {
  /** How long a purge runs, in the account's clock; Infinity: it never ends. May change at run time. */
  purgeDurationMs = 0;
  private readonly byId = new Map<string, TwinQueue>();
  private readonly now: () => number;

  constructor(now: () => number) {
    this.now = now;
  }

  create(name: string, settings: Partial<TwinQueueSettings> = {}): TwinQueue {
    const at = new Date(this.now()).toISOString();
    const queue: TwinQueue = {
      id: randomUUID().replaceAll('-', ''),
      name,
      createdOn: at,
      modifiedOn: at,
      settings: { ...DEFAULT_SETTINGS, ...settings },
      messages: [],
      consumers: [],
    };
    this.byId.set(queue.id, queue);
    return queue;
  }

  /** Every queue in creation order, purges that ended applied. */
  all(): TwinQueue[] {
    return [...this.byId.values()].map((queue) => this.settled(queue));
  }

  get(id: string): TwinQueue | undefined {
    const queue = this.byId.get(id);
    return queue && this.settled(queue);
  }

  findByName(name: string): TwinQueue | undefined {
    return this.all().find((queue) => queue.name === name);
  }

  /** Adds a Worker consumer, or replaces the one with `id`. */
  putConsumer(queue: TwinQueue, consumer: Omit<TwinConsumer, 'id' | 'createdOn'>, id?: string): TwinConsumer {
    const existing = queue.consumers.find((candidate) => candidate.id === id);
    const next: TwinConsumer = {
      id: existing?.id ?? randomUUID().replaceAll('-', ''),
      createdOn: existing?.createdOn ?? new Date(this.now()).toISOString(),
      ...consumer,
    };
    queue.consumers = [...queue.consumers.filter((candidate) => candidate !== existing), next];
    return next;
  }

  send(queue: TwinQueue, messages: { body: unknown; contentType: 'text' | 'json' }[]): void {
    const sentAt = this.now();
    for (const message of messages) queue.messages.push({ id: randomUUID(), sentAt, ...message });
  }

  /** Starts a purge; one still running is replaced by the new one (stand-in). */
  startPurge(queue: TwinQueue): void {
    const startedAt = this.now();
    queue.lastPurge = {
      startedAt,
      endsAt: startedAt + this.purgeDurationMs,
      ids: new Set(queue.messages.map((message) => message.id)),
    };
  }

  /** The last purge: when it started and whether it ended; undefined when the queue was never purged. */
  purgeOf(queue: TwinQueue): { startedAt: string; finished: boolean } | undefined {
    const purge = this.settled(queue).lastPurge;
    if (!purge) return undefined;
    return { startedAt: new Date(purge.startedAt).toISOString(), finished: this.now() >= purge.endsAt };
  }

  /** Removes the messages of a purge that has ended. */
  private settled(queue: TwinQueue): TwinQueue {
    const purge = queue.lastPurge;
    if (purge && this.now() >= purge.endsAt && purge.ids.size > 0) {
      queue.messages = queue.messages.filter((message) => !purge.ids.has(message.id));
      queue.lastPurge = { ...purge, ids: new Set() };
    }
    return queue;
  }
}
