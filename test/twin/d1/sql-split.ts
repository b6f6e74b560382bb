// Splits a D1 `sql` string into statements the way SQLite would: `;` outside quotes and comments ends a
// statement, except inside a CREATE TRIGGER body (BEGIN ... END, with CASE ... END nested in it).

const WORD = /[A-Za-z_]/;

function skipQuoted(sql: string, start: number, close: string): number {
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === close) {
      if (close !== ']' && sql[i + 1] === close) {
        i += 2;
        continue;
      }
      return i + 1;
    }
    i += 1;
  }
  return sql.length;
}

function skipComment(sql: string, start: number): number {
  if (sql.startsWith('--', start)) {
    const end = sql.indexOf('\n', start);
    return end === -1 ? sql.length : end + 1;
  }
  const end = sql.indexOf('*/', start + 2);
  return end === -1 ? sql.length : end + 2;
}

const QUOTES: Record<string, string> = { "'": "'", '"': '"', '`': '`', '[': ']' };

/** Tracks the words of one statement to know whether a `;` is inside a trigger body. */
class TriggerDepth {
  private words: string[] = [];
  private depth = 0;

  see(word: string): void {
    const upper = word.toUpperCase();
    if (this.words.length < 4) this.words.push(upper);
    if (!this.isTrigger()) return;
    if (upper === 'BEGIN' || upper === 'CASE') this.depth += 1;
    else if (upper === 'END' && this.depth > 0) this.depth -= 1;
  }

  private isTrigger(): boolean {
    const [first, second, third] = this.words;
    return first === 'CREATE' && (second === 'TRIGGER' || third === 'TRIGGER');
  }

  insideBody(): boolean {
    return this.depth > 0;
  }
}

function isBlank(statement: string): boolean {
  let i = 0;
  while (i < statement.length) {
    const ch = statement.charAt(i);
    if (/\s/.test(ch)) i += 1;
    else if (statement.startsWith('--', i) || statement.startsWith('/*', i)) i = skipComment(statement, i);
    else return false;
  }
  return true;
}

export function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let start = 0;
  let depth = new TriggerDepth();
  let i = 0;
  while (i < sql.length) {
    const ch = sql.charAt(i);
    const close = QUOTES[ch];
    if (close) i = skipQuoted(sql, i, close);
    else if (sql.startsWith('--', i) || sql.startsWith('/*', i)) i = skipComment(sql, i);
    else if (WORD.test(ch)) {
      let end = i + 1;
      while (end < sql.length && /[\w$]/.test(sql.charAt(end))) end += 1;
      depth.see(sql.slice(i, end));
      i = end;
    } else if (ch === ';' && !depth.insideBody()) {
      statements.push(sql.slice(start, i));
      start = i + 1;
      depth = new TriggerDepth();
      i += 1;
    } else i += 1;
  }
  statements.push(sql.slice(start));
  return statements.map((s) => s.trim()).filter((s) => !isBlank(s));
}
