// gc, cleanup and status run through executeSettings, exactly the code the action runs; the CLI only
// renders the report for a terminal (or as JSON) and turns the exit policy into an exit code.
import type { Command } from '../config/settings.ts';
import { runFailed } from '../report/model.ts';
import { cliPlace, settingsOf } from './inputs.ts';
import type { CliIO } from './io.ts';
import { progressPrinter } from './progress.ts';
import type { CommandSpec, ParsedCommand } from './spec.ts';
import { renderTerminalReport } from './terminal-report.ts';

export async function runReportCommand(
  command: Command,
  spec: Pick<CommandSpec, 'options' | 'env'>,
  parsed: ParsedCommand,
  io: CliIO,
  /** How progress names the slots a run works on: `to reclaim`. */
  selectedAs: string,
  /** status: a line after the table, and more in the JSON (the role signed in with). */
  extra: { after?: () => void; json?: (report: object) => object } = {},
): Promise<number> {
  const settings = settingsOf(command, spec.options, parsed.values, io.env, spec.env);
  // Loaded here, not at the top: help and usage errors answer without loading the Cloudflare SDK.
  const { executeSettings } = await import('../services.ts');
  const report = await executeSettings(settings, {
    signal: io.signal,
    progress: progressPrinter(io, selectedAs),
    place: cliPlace(command, spec.options),
  });
  io.out(
    parsed.values.json === true
      ? JSON.stringify(extra.json?.(report) ?? report, null, 2)
      : renderTerminalReport(report, io.outStyle),
  );
  if (parsed.values.json !== true) extra.after?.();
  return runFailed(report) ? 1 : 0;
}
