// An app's wrangler config as production deploys it (issue 30): its account, its domains, a nightly
// cron, live keys in vars, production's database, a Hyperdrive and a service binding to a
// production Worker. What a preview deployed from the slot's copy must never run with.
export const PRODUCTION_APP = {
  name: 'shop',
  main: 'src/index.js',
  compatibility_date: '2026-01-01',
  account_id: '0000000000000000000000000000beef',
  workers_dev: false,
  routes: [{ pattern: 'shop.example.com/*', zone_name: 'example.com' }],
  triggers: { crons: ['0 3 * * *'] },
  vars: { API_BASE: 'https://api.example.com', STRIPE_MODE: 'live' },
  d1_databases: [
    { binding: 'DB', database_name: 'shop-db', database_id: '11111111-1111-4111-8111-111111111111' },
  ],
  hyperdrive: [{ binding: 'WAREHOUSE', id: 'a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5' }],
  services: [{ binding: 'AUTH', service: 'auth' }],
};

/** The slot config both tests use: a Worker and a D1 database per slot. */
export function shopSlots(pool: string): string {
  return `pool: ${pool}
resources:
  workers:
    - name: shop-{slot}
  d1:
    - name: shop-{slot}-db
`;
}
