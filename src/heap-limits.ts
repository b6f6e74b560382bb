// Imported by src/commands/cloudflare-connection.ts, so set on a run's first erase. A sweep that erases
// allocates steadily (every answer it reads is garbage a moment later) for minutes, and V8's defaults
// let the heap grow with the run's length, not with what it holds: as objects survive its scavenges,
// the young generation doubles up to its maximum, and the old generation may grow to several times
// what survived before its next collection. A 200-slot sweep peaked at 240 MiB of RSS that way, while
// the old generation held under 45 MiB after each collection (bench/README.md, measurement 5).
//
// Both growth factors are read by V8 each time it decides, so setting them on the first erase, before
// the heap has grown much, applies to the rest of the run: the young generation keeps its size and
// the old one grows by a tenth at most. The cost is more, smaller collections, which an I/O-bound
// sweep does not notice. Not at start-up: set there, the action's start to its first request took
// about a fifth longer (measurement 4), and a quiet sweep, most runs, has nothing to keep small.
import { setFlagsFromString } from 'node:v8';

setFlagsFromString('--semi-space-growth-factor=1');
setFlagsFromString('--heap-growing-percent=10');
