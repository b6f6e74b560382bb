// The twin's Vectorize indexes (docs/twin.md#vectorize): each with its vectors and the mutations not yet
// applied. Writes are mutations, as in Vectorize: each gets an id and is applied `mutationDelayMs` of
// the account's clock later, in order (the delay is a stand-in). Reads see applied mutations only.
import { randomUUID } from 'node:crypto';

export const VECTORIZE_METRICS = ['cosine', 'euclidean', 'dot-product'] as const;
export type VectorizeMetric = (typeof VECTORIZE_METRICS)[number];
/** Index names the twin takes (a stand-in, docs/twin.md#vectorize). */
export const INDEX_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;
/** Vectorize's limits page: at most 1,536 dimensions. */
export const MAX_DIMENSIONS = 1536;

export interface TwinVector {
  id: string;
  values: number[];
  metadata?: unknown;
  namespace?: string;
}

interface Mutation {
  id: string;
  appliesAt: number;
  apply: (vectors: Map<string, TwinVector>) => void;
}

export interface TwinVectorIndex {
  name: string;
  description: string;
  dimensions: number;
  metric: VectorizeMetric;
  createdOn: string;
  modifiedOn: string;
  vectors: Map<string, TwinVector>;
  pending: Mutation[];
  processed?: { mutationId: string; at: string };
}

export class VectorizeStore {
  /** How long a mutation waits before it is applied, in the account's clock. May change at run time. */
  mutationDelayMs = 0;
  private readonly byName = new Map<string, TwinVectorIndex>();
  private readonly now: () => number;

  constructor(now: () => number) {
    this.now = now;
  }

  create(
    name: string,
    config: { dimensions: number; metric: VectorizeMetric },
    description = '',
  ): TwinVectorIndex {
    const at = new Date(this.now()).toISOString();
    const index: TwinVectorIndex = {
      name,
      description,
      ...config,
      createdOn: at,
      modifiedOn: at,
      vectors: new Map(),
      pending: [],
    };
    this.byName.set(name, index);
    return index;
  }

  all(): TwinVectorIndex[] {
    return [...this.byName.values()].map((index) => this.settled(index));
  }

  get(name: string): TwinVectorIndex | undefined {
    const index = this.byName.get(name);
    return index && this.settled(index);
  }

  /** Enqueues an insert (existing ids are kept) or an upsert (existing ids are replaced). */
  write(index: TwinVectorIndex, vectors: TwinVector[], mode: 'insert' | 'upsert'): string {
    return this.enqueue(index, (stored) => {
      for (const vector of vectors)
        if (mode === 'upsert' || !stored.has(vector.id)) stored.set(vector.id, vector);
    });
  }

  deleteIds(index: TwinVectorIndex, ids: string[]): string {
    return this.enqueue(index, (stored) => {
      for (const id of ids) stored.delete(id);
    });
  }

  /** Vector ids in the order listings show them (by id). */
  ids(index: TwinVectorIndex): string[] {
    return [...this.settled(index).vectors.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  private enqueue(index: TwinVectorIndex, apply: Mutation['apply']): string {
    const id = randomUUID();
    index.pending.push({ id, appliesAt: this.now() + this.mutationDelayMs, apply });
    this.settled(index);
    return id;
  }

  /** Applies, in order, the mutations whose time has come. */
  private settled(index: TwinVectorIndex): TwinVectorIndex {
    const now = this.now();
    while (index.pending[0] && index.pending[0].appliesAt <= now) {
      const mutation = index.pending.shift() as Mutation;
      mutation.apply(index.vectors);
      index.processed = { mutationId: mutation.id, at: new Date(now).toISOString() };
      index.modifiedOn = index.processed.at;
    }
    return index;
  }
}
