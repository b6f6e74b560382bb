// The account's D1 databases, by uuid. wrangler looks a database up by uuid and by name
// (docs/cloudflare.md#d1-routes).
import { D1Database } from './engine.ts';

/** What a create sets of a database beyond its name, and keeps for its life. */
export interface D1Settings {
  jurisdiction?: string | undefined;
  readReplication?: 'auto' | 'disabled' | undefined;
}

export class D1Store extends Map<string, D1Database> {
  create(name: string, settings: D1Settings = {}): D1Database {
    const db = new D1Database(name);
    db.jurisdiction = settings.jurisdiction ?? null;
    db.readReplication = settings.readReplication ?? 'disabled';
    this.set(db.uuid, db);
    return db;
  }

  find(idOrName: string): D1Database | undefined {
    return this.get(idOrName) ?? [...this.values()].find((db) => db.name === idOrName);
  }
}
