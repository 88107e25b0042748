#!/usr/bin/env node
'use strict';
// Fails when the relative imports of src/, webview-ui/, bench/ or test/ form a cycle. A cycle makes a
// module's exports depend on load order; type-only imports are ignored since they vanish at run time.

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

/** The modules `file` needs at run time: value imports, value re-exports and require() calls. */
function runtimeImports(file) {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const specs = [];
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
      if (!typeOnly) specs.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && !node.isTypeOnly) {
      specs.push(node.moduleSpecifier.text);
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
  return specs.map((s) => resolveImport(file, s)).filter(Boolean);
}

const files = roots.flatMap((r) => listTs(path.join(root, r), []));
const graph = new Map(files.map((f) => [f, runtimeImports(f)]));
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

if (cycles.length > 0) {
  for (const c of cycles) console.error('import cycle: ' + c.map((f) => path.relative(root, f)).join(' -> '));
  console.error(`${cycles.length} import cycle(s) in ${files.length} modules`);
  process.exit(1);
}
console.log(`no import cycles in ${files.length} modules`);
