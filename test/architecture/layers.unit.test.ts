// The house rule of src/ (docs/design.md#the-layers): layers only point down, and no modules import
// each other in a circle. Every import counts, type-only and dynamic ones too: a type belongs to the
// layer that defines it, and a lazily loaded module is still a dependency. A change that breaks the
// rule fails here with the import that broke it.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve('src');

/** The layers from the bottom up; a module may import its own layer and the layers below it. */
const LAYERS: readonly { name: string; holds: readonly string[] }[] = [
  { name: 'base', holds: ['zod.ts', 'signals.ts', 'heap-limits.ts', 'net/', 'text/'] },
  { name: 'clients', holds: ['cloudflare/', 'semaphore/', 'github/'] },
  { name: 'kinds', holds: ['kinds/'] },
  { name: 'config', holds: ['config/'] },
  { name: 'spend', holds: ['spend/'] },
  { name: 'erase', holds: ['erase/'] },
  { name: 'report', holds: ['report/'] },
  { name: 'commands', holds: ['commands/'] },
  { name: 'entries', holds: ['cli/', 'cli.ts', 'index.ts', 'main.ts', 'services.ts'] },
];

function modulesUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((entry) => {
    const path = join(folder, entry);
    if (statSync(path).isDirectory()) return entry === 'public' ? [] : modulesUnder(path);
    return /\.ts$/.test(entry) && !entry.endsWith('.d.ts') ? [path] : [];
  });
}

function layerOf(module: string): number {
  const path = relative(SRC, module);
  const index = LAYERS.findIndex((layer) =>
    layer.holds.some((held) => (held.endsWith('/') ? path.startsWith(held) : path === held)),
  );
  if (index === -1)
    throw new Error(`src/${path} is in no layer: add its folder to LAYERS and docs/design.md`);
  return index;
}

/** The modules of src/ that `module` imports, by path. */
function importsOf(module: string, known: ReadonlySet<string>): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(module, 'utf8'), true, true);
  return importedFiles
    .map((file) => file.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => resolve(dirname(module), name))
    .filter((path) => known.has(path));
}

const MODULES = modulesUnder(SRC);
const KNOWN = new Set(MODULES);
const GRAPH = new Map(MODULES.map((module) => [module, importsOf(module, KNOWN)]));
const show = (module: string) => `src/${relative(SRC, module)}`;

/** The strongly connected components of more than one module (Tarjan): the import circles. */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (module: string) => {
    index.set(module, counter);
    low.set(module, counter);
    counter++;
    stack.push(module);
    onStack.add(module);
    for (const next of graph.get(module) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(module, Math.min(low.get(module) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(module, Math.min(low.get(module) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(module) !== index.get(module)) return;
    const component: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member);
      component.push(member);
      if (member === module) break;
    }
    if (component.length > 1) found.push(component.map(show).sort());
  };
  for (const module of graph.keys()) if (!index.has(module)) visit(module);
  return found;
}

describe('the layers of src/', () => {
  it('reads a graph worth checking', () => {
    expect(MODULES.length).toBeGreaterThan(100);
    expect(GRAPH.get(join(SRC, 'kinds/registry.ts'))).toContain(join(SRC, 'kinds/d1/kind.ts'));
  });

  it('puts every module in a layer', () => {
    for (const module of MODULES) expect(() => layerOf(module)).not.toThrow();
  });

  it('has no import that points up a layer', () => {
    const upward = [...GRAPH].flatMap(([module, imports]) =>
      imports
        .filter((imported) => layerOf(imported) > layerOf(module))
        .map(
          (imported) =>
            `${show(module)} (${LAYERS[layerOf(module)]?.name}) imports ${show(imported)} (${LAYERS[layerOf(imported)]?.name})`,
        ),
    );
    expect(upward).toEqual([]);
  });

  it('has no modules that import each other in a circle', () => {
    expect(circles(GRAPH)).toEqual([]);
  });

  it('finds a circle and an upward import when there are some', () => {
    const [low, high] = [join(SRC, 'text/words.ts'), join(SRC, 'commands/lease.ts')];
    const broken = new Map(GRAPH);
    broken.set(low, [...(GRAPH.get(low) ?? []), high]);
    expect(circles(broken).some((circle) => circle.includes(show(low)))).toBe(true);
    expect(layerOf(high)).toBeGreaterThan(layerOf(low));
  });
});
