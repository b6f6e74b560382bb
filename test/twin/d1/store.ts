// The account's D1 databases, by uuid. wrangler looks a database up by uuid and by name
// (docs/cloudflare.md#d1-routes).
import { D1Database } from './engine.ts';

export class D1Store extends Map<string, D1Database> {
  create(name: string): D1Database {
    const db = new D1Database(name);
    this.set(db.uuid, db);
    return db;
  }

  find(idOrName: string): D1Database | undefined {
    return this.get(idOrName) ?? [...this.values()].find((db) => db.name === idOrName);
  }
}
