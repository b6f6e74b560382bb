// `preview-gc status` shows what each slot spends, as a user runs it against the real semaphore and
// the twin: with the Cloudflare variables and the slot config it reads the last hour itself (terminal
// and --json); without them it shows gc's last records from the semaphore, and says so.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEMO_CONFIG_PATH,
  DEMO_POOL,
  demoActivity,
  demoPlan,
  demoSlugs,
  demoTwinSeed,
  seedDemoPool,
} from '../../demo/fixture.ts';
import type { RunReport } from '../../src/report/model.ts';
import { SemaphoreClient } from '../../src/semaphore/client.ts';
import { type LocalSemaphore, startLocalSemaphore } from '../../src/semaphore/local.ts';
import { startTwin, type Twin } from '../twin/twin.ts';
import { runCli } from './run-cli.ts';

let semaphore: LocalSemaphore;
let twin: Twin;

beforeAll(async () => {
  [semaphore, twin] = await Promise.all([
    startLocalSemaphore(),
    startTwin({ seed: demoTwinSeed(demoSlugs(9), { orders: 2, kvKeys: 5 }) }),
  ]);
  await seedDemoPool(new SemaphoreClient({ baseUrl: semaphore.url, token: semaphore.token }), demoPlan());
  const namespaceOf = (script: string, className: string) =>
    twin.state().durableObjectNamespaces.find((ns) => ns.script === script && ns.class === className)?.id ??
    '';
  for (const span of demoActivity(Date.now(), namespaceOf)) twin.account.analytics.add(span);
}, 60_000);

afterAll(async () => {
  await twin?.close();
  await semaphore?.stop();
});

const SEMAPHORE_ENV = () => ({ SEMAPHORE_URL: semaphore.url, SEMAPHORE_TOKEN: semaphore.token });
const CLOUDFLARE_ENV = () => ({
  CLOUDFLARE_API_TOKEN: twin.token,
  CLOUDFLARE_ACCOUNT_ID: twin.accountId,
  CLOUDFLARE_API_BASE_URL: twin.baseUrl,
});

describe('status and spend', () => {
  it('reads the last hour itself with Cloudflare credentials and the slot config', async () => {
    const env = { ...SEMAPHORE_ENV(), ...CLOUDFLARE_ENV() };
    const table = await runCli(['status', '--config', DEMO_CONFIG_PATH], env);
    expect(table.code, table.stdout + table.stderr).toBe(0);
    expect(table.stdout).toMatch(/SLOT +STATE +HOLDER +LEASE +DIRTY +GENERATION +LAST HOUR +\$\/H/);
    expect(table.stdout).toMatch(
      /preview-2 +leased +pr-1601 .* 312,000 alarms, 867 object-hours +\$5\.\d\d\/h above the alert/,
    );
    expect(table.stdout).toMatch(/preview-5 +available .* quiet +\$0\/h/);
    expect(table.stdout).toContain("each slot's Workers and Durable Objects in the hour before");

    const json = await runCli(['status', '--json', '--config', DEMO_CONFIG_PATH], env);
    const report = JSON.parse(json.stdout) as RunReport;
    expect(report.spend).toMatchObject({ source: 'read', alertUsdPerHour: 1, pricesAsOf: '2026-12-01' });
    const preview2 = report.poolAfter?.find((row) => row.slug === 'preview-2');
    expect(preview2?.spend).toMatchObject({ source: 'read', overAlert: true, figures: { alarms: 312_000 } });
    expect(preview2?.spend?.usdPerHour).toBeGreaterThan(5);
    // status changes nothing: no record, no alert.
    expect(report.spendAlerts).toBeUndefined();
    expect(report.cloudflare?.byKind['analytics.graphql']).toBe(1);
  });

  it("shows gc's last records without Cloudflare credentials, and says where they come from", async () => {
    const before = await runCli(['status', '--pool', DEMO_POOL], SEMAPHORE_ENV());
    expect(before.stdout).toMatch(/preview-2 +leased +pr-1601 .* – +–/);

    const env = { ...SEMAPHORE_ENV(), ...CLOUDFLARE_ENV() };
    const gc = await runCli(
      ['gc', '--config', DEMO_CONFIG_PATH, '--requests-per-second', '50', '--json'],
      env,
    );
    expect(JSON.parse(gc.stdout).spendAlerts.map((alert: { slug: string }) => alert.slug)).toEqual([
      'preview-2',
    ]);

    const after = await runCli(['status', '--pool', DEMO_POOL, '--json'], SEMAPHORE_ENV());
    const report = JSON.parse(after.stdout) as RunReport;
    expect(report.spend?.source).toBe('stored');
    expect(report.poolAfter?.find((row) => row.slug === 'preview-2')?.spend).toMatchObject({
      source: 'stored',
      overAlert: true,
    });
    const table = await runCli(['status', '--pool', DEMO_POOL], SEMAPHORE_ENV());
    expect(table.stdout).toContain("gc's last read of each slot, kept by the semaphore");
  });
});
