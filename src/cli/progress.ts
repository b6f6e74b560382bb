// Progress of a long run, one line per slot on stderr, so stdout stays the report (or its JSON). On a
// TTY the line of the slot in hand is rewritten when it finishes; in a log every line stays.
import type { ProgressEvent } from '../commands/context.ts';
import { formatDuration } from '../report/format.ts';
import { placeInLine } from '../report/queue-text.ts';
import { visible } from '../text/log-text.ts';
import { plural } from '../text/words.ts';
import type { CliIO } from './io.ts';
import { outcomeText, paint } from './style.ts';

export function progressPrinter(
  io: Pick<CliIO, 'err' | 'errRaw' | 'errStyle' | 'errIsTTY'>,
  /** What the selected slots are for: `to reclaim`, `held by pull request #12`. */
  selectedAs: string,
): (event: ProgressEvent) => void {
  const style = io.errStyle;
  const counter = (index: number, total: number) =>
    paint(style, 'dim', `[${String(index + 1).padStart(String(total).length)}/${total}]`);
  // Slots in flight, in the order they started: with parallel slots, several at once. On a TTY they
  // share one line at the bottom, rewritten as slots start and finish.
  const inFlight = new Map<string, string>();
  const showInFlight = () => {
    if (inFlight.size > 0) io.errRaw(`  ${[...inFlight.values()].join('  ')} …`);
  };
  return (event) => {
    switch (event.kind) {
      case 'listed':
        io.err(
          paint(style, 'dim', `Listed ${plural(event.slots, 'slot')}; ${event.selected} ${selectedAs}.`),
        );
        return;
      case 'slot-started':
        if (!io.errIsTTY) return;
        io.errRaw('\r\u001b[K');
        inFlight.set(event.slug, `${counter(event.index, event.total)} ${visible(event.slug)}`);
        showInFlight();
        return;
      case 'slot-finished': {
        const outcome = outcomeText(event.outcome, style);
        const line = `  ${counter(event.index, event.total)} ${visible(event.slug)} ${outcome} ${paint(style, 'dim', formatDuration(event.durationMs))}`;
        if (!io.errIsTTY) {
          io.errRaw(`${line}\n`);
          return;
        }
        inFlight.delete(event.slug);
        io.errRaw(`\r\u001b[K${line}\n`);
        showInFlight();
        return;
      }
      case 'waiting-for-slot': {
        const place = event.place === undefined ? '' : `: ${placeInLine(event.place, event.pool, visible)}`;
        io.err(
          paint(
            style,
            'dim',
            `No slot can be had yet${place}; asking again in ${formatDuration(event.retryInMs)}.`,
          ),
        );
        return;
      }
    }
  };
}
