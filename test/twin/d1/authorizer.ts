// What D1 lets a query do, as workerd's SQLite authorizer decides it (`isAuthorized` in
// src/workerd/util/sqlite.c++, `isAllowedName` in src/workerd/api/sql.c++; the layer behind
// Durable Object SQL and local D1, whose list of functions D1's docs link to). docs/twin.md#d1 names
// each rule's source. The twin runs it on every prepare of a request, also the ones SQLite makes
// while a statement runs: a table-valued pragma function prepares its pragma then, FTS5 reads
// `PRAGMA data_version`, R*Tree `PRAGMA page_size`.
import { constants } from 'node:sqlite';

/** Only `_cf_*` names are D1's own (`isAllowedName`: shorter than 4, or not starting `_cf_`, any case). */
export function isAllowedName(name: string | null): boolean {
  return name === null || name.length < 4 || name.slice(0, 4).toLowerCase() !== '_cf_';
}

/** The virtual table modules D1 allows (FTS5 with fts5vocab, R*Tree with rtree_i32). */
export const ALLOWED_MODULES: ReadonlySet<string> = new Set(['fts5', 'fts5vocab', 'rtree', 'rtree_i32']);

type PragmaSignature = 'no-arg' | 'boolean' | 'object' | 'optional-object' | 'number' | 'number-or-object';

const ALLOWED_PRAGMAS: ReadonlyMap<string, PragmaSignature> = new Map([
  ['data_version', 'no-arg'],
  ['page_size', 'no-arg'],
  ['case_sensitive_like', 'boolean'],
  ['foreign_keys', 'boolean'],
  ['defer_foreign_keys', 'boolean'],
  ['ignore_check_constraints', 'boolean'],
  ['legacy_alter_table', 'boolean'],
  ['recursive_triggers', 'boolean'],
  ['reverse_unordered_selects', 'boolean'],
  ['foreign_key_check', 'optional-object'],
  ['foreign_key_list', 'object'],
  ['index_info', 'object'],
  ['index_list', 'object'],
  ['index_xinfo', 'object'],
  ['quick_check', 'number-or-object'],
  ['optimize', 'number'],
]);

const BOOLEAN_WORDS = ['true', 'false', 'yes', 'no', 'on', 'off', '1', '0'];

function isBoolean(value: string): boolean {
  const quoted = value.length >= 2 && (value[0] === "'" || value[0] === '"') && value.at(-1) === value[0];
  const bare = (quoted ? value.slice(1, -1) : value).toLowerCase();
  // workerd compares prefixes (strncasecmp with each word's length); so does this.
  return BOOLEAN_WORDS.some((word) => bare.startsWith(word));
}

function pragmaAllowed(pragma: string, argument: string | null): boolean {
  if (pragma === 'table_list') return true;
  if (pragma === 'table_info' || pragma === 'table_xinfo')
    return argument !== null && isAllowedName(argument);
  switch (ALLOWED_PRAGMAS.get(pragma)) {
    case 'no-arg':
      return argument === null;
    case 'boolean':
      return argument === null || isBoolean(argument);
    case 'object':
      return argument !== null && isAllowedName(argument);
    case 'optional-object':
      return isAllowedName(argument);
    case 'number':
      return argument === null || /^[+-]?\d+$/.test(argument.trim());
    case 'number-or-object':
      return argument === null || /^\d+$/.test(argument.trim()) || isAllowedName(argument);
    default:
      return false;
  }
}

const ALLOWED_FUNCTIONS: ReadonlySet<string> = new Set(
  [
    // core
    'abs changes char coalesce concat concat_ws format glob hex ifnull iif instr last_insert_rowid length',
    'like likelihood likely load_extension lower ltrim max_scalar min_scalar nullif octet_length printf',
    'quote random randomblob replace round rtrim sign soundex substr substring total_changes trim typeof',
    'unhex unicode unlikely upper zeroblob',
    // dates
    'date time datetime julianday unixepoch strftime timediff current_date current_time current_timestamp',
    // aggregates and windows
    'avg count group_concat max min string_agg sum total row_number rank dense_rank percent_rank cume_dist',
    'ntile lag lead first_value last_value nth_value',
    // math
    'acos acosh asin asinh atan atan2 atanh ceil cos cosh degrees exp floor ln log log2 mod pi pow radians',
    'sin sinh sqrt tan tanh trunc',
    // JSON
    'json jsonb json_array jsonb_array json_array_length json_extract jsonb_extract -> ->> json_insert',
    'jsonb_insert json_object jsonb_object json_patch jsonb_patch json_remove jsonb_remove json_replace',
    'jsonb_replace json_set jsonb_set json_type json_valid json_quote json_group_array jsonb_group_array',
    'json_group_object jsonb_group_object json_each json_tree',
    // FTS5, R*Tree, ALTER TABLE's own
    'match highlight bm25 snippet rtreecheck sqlite_rename_column sqlite_rename_table sqlite_rename_test',
    'sqlite_drop_column sqlite_rename_quotefix',
  ]
    .join(' ')
    .split(' '),
);

const NAME_ACTIONS = new Set<number>([
  constants.SQLITE_CREATE_TABLE,
  constants.SQLITE_DELETE,
  constants.SQLITE_DROP_TABLE,
  constants.SQLITE_INSERT,
  constants.SQLITE_CREATE_VIEW,
  constants.SQLITE_DROP_VIEW,
  constants.SQLITE_REINDEX,
  constants.SQLITE_READ,
  constants.SQLITE_UPDATE,
]);
const TWO_NAME_ACTIONS = new Set<number>([
  constants.SQLITE_CREATE_INDEX,
  constants.SQLITE_DROP_INDEX,
  constants.SQLITE_CREATE_TRIGGER,
  constants.SQLITE_DROP_TRIGGER,
]);

/**
 * workerd's decision for one authorizer call of a user query. `database` is the schema the action is
 * on ('main', 'temp' or null); temp objects may only be read or updated (SQLite's own bookkeeping),
 * never created, and no other schema may be used.
 */
export function d1Allows(
  action: number,
  first: string | null,
  second: string | null,
  database: string | null,
): boolean {
  if (action === constants.SQLITE_ALTER_TABLE) return isAllowedName(first) && isAllowedName(second);
  if (database === 'temp') {
    return (action === constants.SQLITE_READ || action === constants.SQLITE_UPDATE) && isAllowedName(first);
  }
  if (database !== null && database !== 'main') return false;
  if (action === constants.SQLITE_SELECT || action === constants.SQLITE_RECURSIVE) return true;
  if (action === constants.SQLITE_ANALYZE) return true;
  if (NAME_ACTIONS.has(action)) return isAllowedName(first);
  if (TWO_NAME_ACTIONS.has(action)) return isAllowedName(first) && isAllowedName(second);
  if (action === constants.SQLITE_PRAGMA) return first !== null && pragmaAllowed(first.toLowerCase(), second);
  if (action === constants.SQLITE_FUNCTION)
    return second !== null && ALLOWED_FUNCTIONS.has(second.toLowerCase());
  if (action === constants.SQLITE_CREATE_VTABLE || action === constants.SQLITE_DROP_VTABLE) {
    return moduleAllowed(second) && isAllowedName(first);
  }
  // Transactions and savepoints (D1 runs each request as one), ATTACH/DETACH, temp objects, the rest.
  return false;
}

export function moduleAllowed(module: string | null): boolean {
  return module !== null && ALLOWED_MODULES.has(module.toLowerCase());
}
