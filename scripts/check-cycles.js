#!/usr/bin/env node
'use strict';
// Fails when the relative imports of src/, webview-ui/, bench/ or test/ form a cycle. A cycle makes a
// module's exports depend on load order. Type-only imports vanish at run time but are checked too, as
// a second graph: a type-only cycle is a type in the wrong file, and it turns into a run-time cycle
// the day one of its imports needs a value.

const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const root = path.resolve(__dirname, '..');
const roots = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['src', 'webview-ui', 'bench', 'test'];

function listTs(dir, out) {
  if (!fs.existsSync(dir)) return out;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'fixtures') continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) listTs(full, out);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

function resolveImport(from, spec) {
  if (!spec.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), spec);
  for (const candidate of [base + '.ts', path.join(base, 'index.ts'), base.replace(/\.js$/, '.ts')]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/**
 * The modules `file` imports: at run time (value imports, value re-exports and require() calls), and
 * all of them (type-only imports and re-exports as well).
 */
function importsOf(file) {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const specs = [];
  const typeSpecs = [];
  const visit = (node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const typeOnly =
        clause &&
        (clause.isTypeOnly ||
          (!clause.name &&
            clause.namedBindings &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      (typeOnly ? typeSpecs : specs).push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      (node.isTypeOnly ? typeSpecs : specs).push(node.moduleSpecifier.text);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && !node.isTypeOnly) {
      specs.push(node.moduleReference.expression.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.getText?.(source) === 'require' &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      specs.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  const resolve = (list) => list.map((s) => resolveImport(file, s)).filter(Boolean);
  const runtime = resolve(specs);
  return { runtime, all: [...runtime, ...resolve(typeSpecs)] };
}

const files = roots.flatMap((r) => listTs(path.join(root, r), []));
const imports = new Map(files.map((f) => [f, importsOf(f)]));

/** The cycles of a graph (each found once, from the first module of it that the search reaches). */
function cyclesOf(graph) {
  const state = new Map();
  const cycles = [];
  const stack = [];
  function dfs(node) {
    state.set(node, 1);
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 1) cycles.push(stack.slice(stack.indexOf(next)).concat(next));
      else if (!state.has(next)) dfs(next);
    }
    stack.pop();
    state.set(node, 2);
  }
  for (const f of files) if (!state.has(f)) dfs(f);
  return cycles;
}

const runtimeCycles = cyclesOf(new Map(files.map((f) => [f, imports.get(f).runtime])));
const runtimeKeys = new Set(runtimeCycles.map((c) => c.join('\n')));
const typeCycles = cyclesOf(new Map(files.map((f) => [f, imports.get(f).all]))).filter((c) => !runtimeKeys.has(c.join('\n')));
const show = (c) => c.map((f) => path.relative(root, f)).join(' -> ');
for (const c of runtimeCycles) console.error('import cycle: ' + show(c));
for (const c of typeCycles) console.error('type-only import cycle: ' + show(c));
if (runtimeCycles.length + typeCycles.length > 0) {
  console.error(
    `${runtimeCycles.length} import cycle(s) and ${typeCycles.length} more through type-only imports in ${files.length} modules`,
  );
  process.exit(1);
}
console.log(`no import cycles (type-only imports included) in ${files.length} modules`);
