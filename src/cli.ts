// The preview-gc CLI (`dist/cli.js`, the package's bin): wires the process to runCli and nothing else.
// The first SIGINT/SIGTERM stops the run the way the action stops (release the lease in hand, report);
// a second one exits at once, and a lease still held then expires by itself.
import { processIO } from './cli/io.ts';
import { runCli } from './cli/main.ts';
import { onTerminationSignals } from './signals.ts';

const controller = new AbortController();
const stopListening = onTerminationSignals((signal) => {
  process.stderr.write(
    `\npreview-gc: ${signal}: releasing the lease in hand, then stopping (again to quit now)\n`,
  );
  controller.abort(signal);
});

process.exitCode = await runCli(
  process.argv.slice(2),
  processIO({
    env: process.env,
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    signal: controller.signal,
  }),
);
stopListening();
