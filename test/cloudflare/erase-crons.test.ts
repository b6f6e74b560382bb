// Production's cron triggers must not run in a preview, and a deploy without crons leaves the
// Worker's schedules as they were. So the erase removes the slot Worker's cron triggers and reads them
// back; a dry run says it would and changes nothing.
import { describe, expect, it } from 'vitest';
import { eraseInNewRun, slotResources, twinForTheseTests, workerIn, writesIn } from './support.ts';

const twin = twinForTheseTests();
const PARK = `pool: p
resources:
  workers:
    - name: billing-{slot}
`;

describe("the slot Worker's cron triggers", () => {
  it('are removed by the erase and read back as none', async () => {
    twin().seed({ workers: [{ name: 'billing-preview-1', crons: ['0 3 * * *', '*/5 * * * *'] }] });
    const { result } = await eraseInNewRun(twin(), slotResources('preview-1', PARK));
    expect(result.status).toBe('complete');
    expect(result.steps[0]?.summary).toContain('removed its 2 cron triggers');
    expect(result.steps[0]?.inventory?.state).toBe('empty');
    expect(workerIn(twin(), 'billing-preview-1').crons).toEqual([]);
  });

  it('are named, not removed, by a dry run', async () => {
    twin().seed({ workers: [{ name: 'billing-preview-2', crons: ['0 3 * * *'] }] });
    twin().resetRequests();
    const { result } = await eraseInNewRun(twin(), slotResources('preview-2', PARK), { dryRun: true });
    expect(result.steps[0]?.summary).toContain('would remove its cron trigger');
    expect(writesIn(twin())).toEqual([]);
    expect(workerIn(twin(), 'billing-preview-2').crons).toEqual(['0 3 * * *']);
  });
});
