// Edits to a wrangler config's text, by path: the JSONC text is edited in place (its comments and
// layout stay), a TOML table is edited as data (smol-toml writes it anew). Both the preview env and
// the slot's copy are made of such edits.
import { applyEdits, type FormattingOptions, modify } from 'jsonc-parser';
import type { ConfigPath } from '../../kinds/wrangler-binding.ts';

export interface ConfigEdit {
  path: ConfigPath;
  /** undefined removes the key. */
  value: unknown;
}

function indentOf(text: string): FormattingOptions {
  const indent = /\n([ \t]+)\S/.exec(text)?.[1] ?? '  ';
  return {
    insertSpaces: !indent.includes('\t'),
    tabSize: indent.includes('\t') ? 1 : indent.length,
    eol: '\n',
  };
}

/** `text` (JSONC) with `edits` applied in order, indented as the file is. */
export function editJsonc(text: string, edits: readonly ConfigEdit[]): string {
  const formattingOptions = indentOf(text);
  let edited = text;
  for (const edit of edits)
    edited = applyEdits(
      edited,
      modify(edited, [...edit.path], edit.value === undefined ? undefined : structuredClone(edit.value), {
        formattingOptions,
      }),
    );
  return edited;
}

/** The table at `path`, made where it is missing (`[triggers]` for `triggers.crons`). */
function tableAt(top: Record<string, unknown>, path: ConfigPath): Record<string | number, unknown> {
  let table: Record<string | number, unknown> = top;
  for (const part of path) {
    const next = Object.hasOwn(table, part) ? table[part] : undefined;
    if (typeof next !== 'object' || next === null)
      Object.defineProperty(table, part, { value: {}, enumerable: true, writable: true, configurable: true });
    table = table[part] as Record<string | number, unknown>;
  }
  return table;
}

/** `table` (parsed TOML, changed in place) with `edits` applied in order. */
export function editTable(table: Record<string, unknown>, edits: readonly ConfigEdit[]): void {
  for (const edit of edits) {
    const parent = tableAt(table, edit.path.slice(0, -1));
    const key = edit.path.at(-1) as string | number;
    if (edit.value === undefined) delete parent[key];
    // Defined, not assigned: no key may reach a prototype, whatever the path says.
    else
      Object.defineProperty(parent, key, {
        value: structuredClone(edit.value),
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
}

/** Whether `value` is a table (an object, not a list) of a parsed config. */
export function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value at `path` of a parsed config, or undefined. */
export function valueAt(top: unknown, path: ConfigPath): unknown {
  let value = top;
  for (const part of path) value = (value as Record<string | number, unknown> | undefined)?.[part];
  return value;
}
