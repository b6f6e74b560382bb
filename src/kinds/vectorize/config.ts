// What the slot config says of a Vectorize index: its name template.
import * as z from '../../zod.ts';
import type { Origin } from '../kind.ts';
import { NAME_CHARSET, nameTemplate } from '../name-template.ts';

export interface VectorizeTemplate {
  name: string;
}
export type SlotVectorIndex = VectorizeTemplate & Origin;

export const vectorizeEntry = z.strictObject({
  name: nameTemplate('name: app-{slot}-embeddings', NAME_CHARSET),
});
