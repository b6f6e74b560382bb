// Checks every end-to-end run of the reliability suite makes on what a person sees: no token anywhere,
// and a summary whose only HTML is the few tags the renderer writes itself.

/** The log a person sees: the runner consumes `::add-mask::` commands and never shows them. */
export function visibleLog(stdout: string): string {
  return stdout
    .split('\n')
    .filter((line) => !line.startsWith('::add-mask::'))
    .join('\n');
}

export interface SeenOutput {
  log: string;
  summary: string;
  outputs: Record<string, string>;
  /** Anything else the run left for a person, e.g. stderr. */
  other?: string[];
}

/** Where a secret shows up (`summary`, `outputs.report`, …); empty when it shows up nowhere. */
export function secretLeaks(seen: SeenOutput, secrets: readonly string[]): string[] {
  const places: [string, string][] = [
    ['log', visibleLog(seen.log)],
    ['summary', seen.summary],
    ...Object.entries(seen.outputs).map(([name, value]): [string, string] => [`outputs.${name}`, value]),
    ...(seen.other ?? []).map((text, index): [string, string] => [`other[${index}]`, text]),
  ];
  return places.flatMap(([place, text]) =>
    secrets.filter((secret) => text.includes(secret)).map(() => place),
  );
}

/** Tags the summary renderer writes on purpose; any other `<` came from data and was not escaped. */
const RENDERER_TAGS = /<\/?(?:br|sub)>/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** What is unescaped in a summary: raw HTML or control characters; empty when it is clean. */
export function summaryEscapeProblems(summary: string): string[] {
  const problems: string[] = [];
  const withoutOwnTags = summary.replace(RENDERER_TAGS, '');
  const raw = /<[^\n]{0,40}/.exec(withoutOwnTags);
  if (raw !== null) problems.push(`raw HTML in the summary: ${JSON.stringify(raw[0])}`);
  const control = CONTROL_CHARACTERS.exec(summary);
  if (control !== null) problems.push(`a control character U+${control[0].codePointAt(0)?.toString(16)}`);
  return problems;
}

// The commands the action writes on purpose: its annotations (titled preview-gc, or the one untitled
// failure and summary warning) and the masks of its own secrets.
const OWN_ANNOTATION = /^::(?:error|warning|notice)(?: title=preview-gc[^:]*)?::/;

/**
 * Lines of a run's stdout the Actions runner would act on that the action did not mean: a line
 * starting with `::` (after white space) that is not one of its own annotations or masks, more than
 * one untitled failure, or `##[` anywhere (the runner's legacy parser looks for it mid-line).
 */
export function workflowCommandProblems(stdout: string, ownMasks: ReadonlySet<string>): string[] {
  const lines = stdout.split(/\r\n|\r|\n/);
  const foreign = lines.filter((line) => {
    const command = line.trimStart();
    if (line.includes('##[')) return true;
    if (!command.startsWith('::')) return false;
    if (command.startsWith('::add-mask::')) return !ownMasks.has(command.slice('::add-mask::'.length));
    return !OWN_ANNOTATION.test(command);
  });
  const failures = lines.filter((line) => line.startsWith('::error::'));
  return failures.length > 1 ? [...foreign, ...failures.slice(1)] : foreign;
}
