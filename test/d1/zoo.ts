// The schema zoo: D1 databases shaped like the ones real apps leave in a preview slot, each with a
// tenant's rows in it, and what an erase in rows mode must come to: reclaimed (the oracle then finds
// nothing), or refused with a message that names the cause and the fix (never reclaimed).
//
// Seeds run as one script with foreign keys on, the way `wrangler d1 migrations apply` and a
// preview's traffic would leave the database (only module and name rules of D1 apply to them).

/** `n` rows made by SQLite itself: `WITH RECURSIVE` keeps the script short whatever `n` is. */
export function numbers(n: number, insert: string): string {
  return `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${n}) ${insert};`;
}

export interface ZooSchema {
  /** What it stands for. */
  name: string;
  sql: string;
  /** What a rows erase must come to; a refusal's message must match. */
  expect: { outcome: 'reclaimed' } | { outcome: 'refused'; message: RegExp };
}

const MIGRATIONS = `CREATE TABLE d1_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP NOT NULL);
INSERT INTO d1_migrations (name, applied_at) VALUES ('0001_init.sql', '2026-11-01T00:00:00Z');`;

/** The table as wrangler's `migrations apply` makes it (getCreateMigrationsTableQuery in its d1/migrations). */
export const WRANGLER_MIGRATIONS = `CREATE TABLE IF NOT EXISTS d1_migrations(
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  name       TEXT UNIQUE,
  applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL
);
INSERT INTO d1_migrations (name) VALUES ('0001_init.sql'), ('0002_more.sql');`;

const reclaimed = { outcome: 'reclaimed' } as const;

export const ZOO: readonly ZooSchema[] = [
  {
    name: 'FTS5 docs beside docs_meta, search beside search_history',
    sql: `${MIGRATIONS}
CREATE VIRTUAL TABLE docs USING fts5(title, body);
CREATE TABLE docs_meta (doc_id INTEGER PRIMARY KEY, author TEXT, updated_at TEXT);
CREATE VIRTUAL TABLE search USING fts5(q);
CREATE TABLE search_history (id INTEGER PRIMARY KEY, q TEXT NOT NULL, at TEXT);
${numbers(40, "INSERT INTO docs (rowid, title, body) SELECT i, 'doc ' || i, 'tenant secret wording ' || i FROM n")}
${numbers(12, "INSERT INTO docs_meta SELECT i, 'ana', '2026-11-0' || (i % 9 + 1) FROM n")}
INSERT INTO search (q) VALUES ('invoice march'), ('salary');
${numbers(30, "INSERT INTO search_history (q, at) SELECT 'query ' || i, '2026-11-01' FROM n")}`,
    expect: reclaimed,
  },
  {
    name: 'contentless FTS5 indexes (plain, columnsize=0, contentless_delete=1)',
    sql: `CREATE VIRTUAL TABLE notes_index USING fts5(body, content='');
CREATE VIRTUAL TABLE tags_index USING fts5(tag, content="", columnsize=0);
CREATE VIRTUAL TABLE drafts_index USING fts5(body, content='', contentless_delete=1);
${numbers(50, "INSERT INTO notes_index (rowid, body) SELECT i, 'private note ' || i FROM n")}
${numbers(20, "INSERT INTO tags_index (rowid, tag) SELECT i, 'tag' || i FROM n")}
${numbers(5, "INSERT INTO drafts_index (rowid, body) SELECT i, 'draft ' || i FROM n")}`,
    expect: reclaimed,
  },
  {
    name: 'external-content FTS5 without sync triggers (rebuilt by the app)',
    sql: `CREATE TABLE posts (id INTEGER PRIMARY KEY, title TEXT, body TEXT);
CREATE VIRTUAL TABLE posts_fts USING fts5(title, body, content='posts', content_rowid='id');
${numbers(60, "INSERT INTO posts SELECT i, 'post ' || i, 'hello tenant ' || i FROM n")}
INSERT INTO posts_fts(posts_fts) VALUES ('rebuild');`,
    expect: reclaimed,
  },
  {
    name: 'external-content FTS5 kept in sync by triggers',
    sql: `CREATE TABLE articles (id INTEGER PRIMARY KEY, body TEXT NOT NULL);
CREATE VIRTUAL TABLE articles_fts USING fts5(body, content=articles, content_rowid=id);
CREATE TRIGGER articles_ai AFTER INSERT ON articles BEGIN
  INSERT INTO articles_fts(rowid, body) VALUES (new.id, new.body);
END;
CREATE TRIGGER articles_ad AFTER DELETE ON articles BEGIN
  INSERT INTO articles_fts(articles_fts, rowid, body) VALUES ('delete', old.id, old.body);
END;
CREATE TRIGGER articles_au AFTER UPDATE ON articles BEGIN
  INSERT INTO articles_fts(articles_fts, rowid, body) VALUES ('delete', old.id, old.body);
  INSERT INTO articles_fts(rowid, body) VALUES (new.id, new.body);
END;
${numbers(25_000, "INSERT INTO articles SELECT i, 'article body ' || i FROM n")}`,
    expect: reclaimed,
  },
  {
    // Found by the property test: the foreign key puts notes before accounts, and invites' and
    // accounts' audit triggers refill notes around its delete; an index cleared after that lacked the
    // refilled row, and the next round's sync trigger 'delete' of it failed as a malformed index.
    name: "external-content FTS5 whose content table other tables' audit triggers refill",
    sql: `CREATE TABLE accounts (id INTEGER PRIMARY KEY, email TEXT) WITHOUT ROWID;
CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT, account_id INTEGER REFERENCES accounts(id) ON DELETE CASCADE);
CREATE TABLE invites (id INTEGER PRIMARY KEY, email TEXT);
INSERT INTO accounts VALUES (1, 'ana@example.com');
INSERT INTO invites VALUES (1, 'bo@example.com');
CREATE VIRTUAL TABLE notes_fts USING fts5(body, content=notes, content_rowid=id);
INSERT INTO notes_fts(notes_fts) VALUES ('rebuild');
CREATE TRIGGER notes_ai AFTER INSERT ON notes BEGIN INSERT INTO notes_fts(rowid, body) VALUES (new.id, new.body); END;
CREATE TRIGGER notes_ad AFTER DELETE ON notes BEGIN
  INSERT INTO notes_fts(notes_fts, rowid, body) VALUES ('delete', old.id, old.body);
END;
CREATE TRIGGER accounts_audit AFTER DELETE ON accounts BEGIN
  INSERT INTO notes (id, body) VALUES ((SELECT coalesce(max(id), 0) + 1 FROM notes), 'closed ' || old.id);
END;
CREATE TRIGGER invites_audit AFTER DELETE ON invites BEGIN
  INSERT INTO notes (id, body) VALUES ((SELECT coalesce(max(id), 0) + 1 FROM notes), 'revoked ' || old.id);
END;`,
    expect: reclaimed,
  },
  {
    name: 'AFTER DELETE audit trigger writing into an earlier-sorting audit_log',
    sql: `${MIGRATIONS}
CREATE TABLE audit_log (id INTEGER PRIMARY KEY, what TEXT NOT NULL, at TEXT DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT NOT NULL, total INTEGER);
CREATE TRIGGER orders_audit AFTER DELETE ON orders BEGIN
  INSERT INTO audit_log (what) VALUES ('deleted order ' || old.id);
END;
${numbers(30, "INSERT INTO orders SELECT i, 'customer ' || i, i * 100 FROM n")}
INSERT INTO audit_log (what) VALUES ('created');`,
    expect: reclaimed,
  },
  {
    name: 'WITHOUT ROWID and STRICT tables, composite keys',
    sql: `CREATE TABLE kv (namespace TEXT NOT NULL, key TEXT NOT NULL, value BLOB, PRIMARY KEY (namespace, key)) WITHOUT ROWID;
CREATE TABLE counters (name TEXT PRIMARY KEY, n INTEGER NOT NULL) STRICT, WITHOUT ROWID;
CREATE TABLE typed (id INTEGER PRIMARY KEY, score REAL, label TEXT) STRICT;
${numbers(23_456, "INSERT INTO kv SELECT 'ns' || (i % 7), 'key' || i, randomblob(8) FROM n")}
${numbers(40, "INSERT INTO counters SELECT 'c' || i, i FROM n")}
${numbers(15, "INSERT INTO typed SELECT i, i / 3.0, 'x' FROM n")}`,
    expect: reclaimed,
  },
  {
    name: 'self-referencing and cascading foreign keys',
    sql: `CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT UNIQUE NOT NULL);
CREATE TABLE sessions (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE);
CREATE TABLE comments (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES comments(id) ON DELETE CASCADE, author_id INTEGER REFERENCES users(id), body TEXT);
CREATE TABLE categories (id INTEGER PRIMARY KEY, parent INTEGER REFERENCES categories(id), name TEXT);
CREATE TABLE invoices (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE RESTRICT);
CREATE INDEX comments_by_parent ON comments (parent_id);
CREATE INDEX categories_by_parent ON categories (parent);
${numbers(300, "INSERT INTO users SELECT i, 'user' || i || '@example.com' FROM n")}
${numbers(900, 'INSERT INTO sessions (user_id) SELECT (i % 300) + 1 FROM n')}
${numbers(21_000, "INSERT INTO comments SELECT i, CASE WHEN i > 1 THEN (i - 1) / 2 + 1 END, (i % 300) + 1, 'reply' FROM n")}
${numbers(15_000, "INSERT INTO categories SELECT i, CASE WHEN i > 1 THEN i - 1 END, 'c' || i FROM n")}
${numbers(100, 'INSERT INTO invoices (user_id) SELECT (i % 300) + 1 FROM n')}`,
    expect: reclaimed,
  },
  {
    name: 'a version history: a chain of rows on a key to itself that cascades',
    sql: `CREATE TABLE revisions (id INTEGER PRIMARY KEY, previous INTEGER REFERENCES revisions(id) ON DELETE CASCADE, body TEXT);
CREATE INDEX revisions_by_previous ON revisions (previous);
${numbers(1_500, "INSERT INTO revisions SELECT i, CASE WHEN i > 1 THEN i - 1 END, 'draft ' || i FROM n")}`,
    expect: reclaimed,
  },
  {
    name: 'generated columns and a column named rowid',
    sql: `CREATE TABLE line_items (id INTEGER PRIMARY KEY, qty INTEGER, price INTEGER,
  total INTEGER GENERATED ALWAYS AS (qty * price) STORED, label TEXT AS ('item ' || id) VIRTUAL);
CREATE TABLE imported (rowid TEXT, payload TEXT);
${numbers(14_000, 'INSERT INTO line_items (id, qty, price) SELECT i, i % 5, 100 FROM n')}
${numbers(12_000, "INSERT INTO imported SELECT NULL, 'row ' || i FROM n")}`,
    expect: reclaimed,
  },
  {
    name: 'names that need quoting, non-ASCII ones too',
    sql: `CREATE TABLE "order items" (id INTEGER PRIMARY KEY, "naïve ""quoted"" column" TEXT);
CREATE TABLE "Bestellungen Ü" (id INTEGER PRIMARY KEY, "order" INTEGER REFERENCES "order items"(id));
CREATE TABLE 日本語 (id INTEGER PRIMARY KEY, 名前 TEXT);
CREATE VIRTUAL TABLE "search ""all""" USING fts5("Titel", content='');
CREATE INDEX "by naïve" ON "order items" ("naïve ""quoted"" column");
${numbers(20, 'INSERT INTO "order items" SELECT i, \'v\' || i FROM n')}
${numbers(20, 'INSERT INTO "Bestellungen Ü" SELECT i, i FROM n')}
${numbers(5, "INSERT INTO 日本語 SELECT i, '名前' || i FROM n")}
INSERT INTO "search ""all""" (rowid, "Titel") VALUES (1, 'geheim'), (2, 'vertraulich');`,
    expect: reclaimed,
  },
  {
    name: 'one table of 200,000 rows',
    sql: `${MIGRATIONS}
CREATE TABLE events (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, at INTEGER NOT NULL);
CREATE INDEX events_by_kind ON events (kind, at);
${numbers(200_000, "INSERT INTO events SELECT i, 'kind' || (i % 13), i FROM n")}`,
    expect: reclaimed,
  },
  {
    name: 'R*Tree, fts5vocab and views',
    sql: `CREATE VIRTUAL TABLE places USING rtree(id, min_x, max_x, min_y, max_y, +name);
CREATE VIRTUAL TABLE tiles USING rtree_i32(id, x0, x1);
CREATE VIRTUAL TABLE notes USING fts5(body);
CREATE VIRTUAL TABLE notes_terms USING fts5vocab(notes, 'row');
CREATE TABLE visits (id INTEGER PRIMARY KEY, place_id INTEGER);
CREATE VIEW busy_places AS SELECT place_id, count(*) AS n FROM visits GROUP BY place_id;
${numbers(12_345, "INSERT INTO places SELECT i, i, i + 1, i, i + 2, 'place ' || i FROM n")}
${numbers(30, 'INSERT INTO tiles SELECT i, i, i + 3 FROM n')}
${numbers(10, "INSERT INTO notes (body) SELECT 'remember ' || i FROM n")}
${numbers(50, 'INSERT INTO visits (place_id) SELECT i % 5 FROM n')}`,
    expect: reclaimed,
  },
  {
    // SQLite moves an R*Tree's cells on a delete and clears none: the root keeps ids and coordinates.
    name: 'an R*Tree whose entries the tenant deleted, and one it did not',
    sql: `CREATE VIRTUAL TABLE drops USING rtree(id, lat0, lat1, lon0, lon1);
CREATE VIRTUAL TABLE homes USING rtree_i32(id, x0, x1, +owner);
${numbers(20, 'INSERT INTO drops SELECT i, 52.5 + i / 1000.0, 52.5 + i / 1000.0, 13.4, 13.4 FROM n')}
DELETE FROM drops;
${numbers(3, "INSERT INTO homes SELECT i, i, i + 10, 'owner ' || i FROM n")}`,
    expect: reclaimed,
  },
  {
    name: "a schema of 400 tables and wrangler's d1_migrations",
    sql: [
      WRANGLER_MIGRATIONS,
      ...Array.from(
        { length: 400 },
        (_, i) =>
          `CREATE TABLE t${i} (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t${i} (v) VALUES ('${i}');`,
      ),
    ].join('\n'),
    expect: reclaimed,
  },
  {
    // No trigger of the tenant's runs during the erase: the three below would otherwise refill or refuse.
    name: 'a trigger that puts back every row it sees deleted',
    sql: `CREATE TABLE jobs (id INTEGER PRIMARY KEY, state TEXT);
CREATE TRIGGER jobs_requeue AFTER DELETE ON jobs BEGIN
  INSERT INTO jobs (state) VALUES ('requeued');
END;
INSERT INTO jobs (state) VALUES ('queued'), ('queued');`,
    expect: reclaimed,
  },
  {
    name: 'a trigger that refuses deletes',
    sql: `CREATE TABLE ledger (id INTEGER PRIMARY KEY, amount INTEGER);
CREATE TRIGGER ledger_append_only BEFORE DELETE ON ledger BEGIN
  SELECT RAISE(ABORT, 'the ledger is append-only');
END;
INSERT INTO ledger (amount) VALUES (10), (20);`,
    expect: reclaimed,
  },
  {
    name: 'two tables whose triggers write into each other',
    sql: `CREATE TABLE pings (id INTEGER PRIMARY KEY);
CREATE TABLE pongs (id INTEGER PRIMARY KEY);
CREATE TRIGGER ping_pong AFTER DELETE ON pings BEGIN INSERT INTO pongs (id) VALUES (NULL); END;
CREATE TRIGGER pong_ping AFTER DELETE ON pongs BEGIN INSERT INTO pings (id) VALUES (NULL); END;
INSERT INTO pings DEFAULT VALUES; INSERT INTO pongs DEFAULT VALUES;`,
    expect: reclaimed,
  },
  {
    name: "a tenant's trigger that copies each deleted row into d1_migrations",
    sql: `${WRANGLER_MIGRATIONS}
CREATE TABLE secrets (id INTEGER PRIMARY KEY, body TEXT NOT NULL);
CREATE TRIGGER secrets_smuggle AFTER DELETE ON secrets BEGIN
  INSERT INTO d1_migrations (name) VALUES ('smuggled: ' || old.body);
END;
${numbers(25, "INSERT INTO secrets (body) SELECT 'tenant secret ' || i FROM n")}`,
    expect: reclaimed,
  },
  {
    // SQLite folds only ASCII letters: "Ä" and "ä" are two tables, "Orders" and "ORDERS" one.
    name: 'names as SQLite compares them: one-sided non-ASCII pairs, ASCII case, quotes',
    sql: `CREATE TABLE "Ä" (id INTEGER PRIMARY KEY, v TEXT);
CREATE TABLE "ä" (id INTEGER PRIMARY KEY, v TEXT);
CREATE TABLE "É" (id INTEGER PRIMARY KEY, v TEXT);
CREATE TABLE "é" (id INTEGER PRIMARY KEY, v TEXT);
CREATE TABLE "Ü" (id INTEGER PRIMARY KEY, v TEXT);
CREATE TABLE "ü" (id INTEGER PRIMARY KEY, v TEXT);
CREATE TABLE Orders (id INTEGER PRIMARY KEY, total INTEGER);
CREATE TABLE "Line ""Items""" (id INTEGER PRIMARY KEY, order_id INTEGER REFERENCES ORDERS(id));
${numbers(30, `INSERT INTO "Ä" SELECT i, 'upper ä ' || i FROM n`)}
${numbers(30, `INSERT INTO "é" SELECT i, 'lower é ' || i FROM n`)}
${numbers(30, `INSERT INTO "ü" SELECT i, 'lower ü ' || i FROM n`)}
${numbers(10, 'INSERT INTO orders SELECT i, i FROM n')}
${numbers(10, 'INSERT INTO "LINE ""ITEMS""" SELECT i, i FROM n')}`,
    expect: reclaimed,
  },
  {
    name: 'statistics and sequences: ANALYZE and AUTOINCREMENT',
    sql: `${WRANGLER_MIGRATIONS}
CREATE TABLE payments (id INTEGER PRIMARY KEY AUTOINCREMENT, iban TEXT NOT NULL);
CREATE INDEX payments_by_iban ON payments (iban);
${numbers(200, "INSERT INTO payments (iban) SELECT 'DE-secret-' || (i % 17) FROM n")}
ANALYZE;`,
    expect: reclaimed,
  },
  {
    name: 'more triggers than the erase sets aside in a request',
    sql: `CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);
INSERT INTO notes (body) VALUES ('kept');
${Array.from({ length: 101 }, (_, i) => `CREATE TRIGGER notes_t${i} AFTER DELETE ON notes BEGIN SELECT 1; END;`).join('\n')}`,
    expect: { outcome: 'refused', message: /101 triggers, more than the 100 .*erase: drop/ },
  },
  {
    name: 'rows of a self-cascading table that reference each other in a loop',
    sql: `CREATE TABLE rings (id INTEGER PRIMARY KEY, next INTEGER REFERENCES rings(id) ON DELETE CASCADE);
BEGIN; PRAGMA defer_foreign_keys = on; INSERT INTO rings VALUES (1, 2), (2, 1); COMMIT;`,
    expect: { outcome: 'refused', message: /rings .*reference each other in a loop.*erase: drop/ },
  },
];
