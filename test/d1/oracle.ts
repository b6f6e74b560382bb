// The oracle: what is left in a copy of a twin's D1 database, read with plain SQLite (node:sqlite)
// and nothing else. It shares no code with preview-gc nor with the twin's D1 routes; it knows SQLite,
// FTS5 and R*Tree as their documentation describes them:
// - every table but SQLite's (`sqlite_*`), D1's (`_cf_*`) and, in rows mode, `d1_migrations` must be
//   empty, shadow tables included, but for what an empty index keeps: FTS5's `_config` settings and
//   its `_data` records 1 (averages) and 10 (structure), an R*Tree's root node when all zeroes;
// - every FTS5 index must have no term, read through an fts5vocab table the oracle makes in `temp`;
// - SQLite's `sqlite_sequence`, `sqlite_stat1` and `sqlite_stat4`, where there, must be empty: they
//   keep table names, counters and sample rows;
// - in drop mode, no object but SQLite's and D1's may be there at all.
import { DatabaseSync } from 'node:sqlite';

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;

function isOwnedBySqliteOrD1(name: string): boolean {
  return /^(sqlite_|_cf_)/i.test(name);
}

/** What an empty index keeps in each of its shadow tables: a WHERE that selects everything else. */
const FTS5_SHADOW_DATA: Record<string, string> = {
  _data: 'WHERE id NOT IN (1, 10)',
  _idx: '',
  _content: '',
  _docsize: '',
};
/** An R*Tree's root keeps the bytes of deleted entries: only a root of zeroes holds nothing. */
const RTREE_SHADOW_DATA: Record<string, string> = {
  _node: 'WHERE nodeno <> 1 OR data <> zeroblob(length(data))',
  _parent: '',
  _rowid: '',
};

/** Findings, one a line ("table docs_meta: 12 rows"); none means nothing of a tenant is left. */
export function leftIn(path: string, mode: 'rows' | 'drop'): string[] {
  const db = new DatabaseSync(path);
  try {
    const objects = db.prepare('SELECT type, name, sql FROM sqlite_schema').all() as {
      type: string;
      name: string;
      sql: string | null;
    }[];
    const mine = objects.filter((object) => !isOwnedBySqliteOrD1(object.name));
    const findings: string[] = [];
    const count = (what: string, sql: string) => {
      const n = Number((db.prepare(sql).get() as { n: number }).n);
      if (n > 0) findings.push(`${what}: ${n} rows`);
    };
    for (const object of objects)
      if (object.type === 'table' && /^sqlite_(sequence|stat1|stat4)$/.test(object.name))
        count(`SQLite's ${object.name}`, `SELECT count(*) AS n FROM ${object.name}`);
    if (mode === 'drop') return [...mine.map((object) => `${object.type} ${object.name}`), ...findings];

    const virtual = new Map<string, string>();
    for (const object of mine) {
      const module = /^CREATE VIRTUAL TABLE\b[\s\S]*?\bUSING\s+(\w+)/i.exec(object.sql ?? '')?.[1];
      if (object.type === 'table' && module !== undefined) virtual.set(object.name, module.toLowerCase());
    }
    const shadowOf = (name: string): { owner: string; where: string } | undefined => {
      for (const [owner, module] of virtual) {
        const suffixes =
          module === 'fts5' ? FTS5_SHADOW_DATA : module.startsWith('rtree') ? RTREE_SHADOW_DATA : {};
        for (const [suffix, where] of Object.entries(suffixes))
          if (name === `${owner}${suffix}`) return { owner, where };
        if (module === 'fts5' && name === `${owner}_config`) return { owner, where: 'WHERE 0' };
      }
      return undefined;
    };
    let vocab = 0;
    for (const object of mine) {
      if (object.type !== 'table') continue;
      if (mode === 'rows' && object.name.toLowerCase() === 'd1_migrations') continue;
      const module = virtual.get(object.name);
      if (module === 'fts5') {
        const terms = `oracle_terms_${vocab++}`;
        db.exec(`CREATE VIRTUAL TABLE temp.${terms} USING fts5vocab(main, ${ident(object.name)}, row)`);
        count(`FTS5 index ${object.name}, terms`, `SELECT count(*) AS n FROM temp.${terms}`);
        continue;
      }
      if (module !== undefined) continue; // R*Tree: its shadow tables; fts5vocab: no storage
      const shadow = shadowOf(object.name);
      count(
        shadow ? `${object.name} (of ${shadow.owner})` : `table ${object.name}`,
        `SELECT count(*) AS n FROM ${ident(object.name)} ${shadow?.where ?? ''}`,
      );
    }
    return findings;
  } finally {
    db.close();
  }
}
