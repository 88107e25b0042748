/**
 * Every regular expression that runs over model output or workspace text, fed adversarial input:
 * long runs of its own special characters, unclosed quotes, backslash pairs, 100 KB lines. Each
 * must cost linear time: the CPU time for twice the input stays within 3× the time for the input
 * (plus a small allowance for timer granularity on a busy machine), and a 100 KB input stays far
 * under the time an extension-host stall would be noticed. A new expression over such text gets
 * a row here (docs/performance.md, SECURITY.md "Threat 3").
 */
import * as assert from 'node:assert/strict';
import { appendBlock, codeOf, declarationEnd, declarationHead, mergeBlock } from '../../src/services/apply/applyMerge';
import { cleanPath, looksLikePath, matchScore, pathFromFenceInfo, pathFromLineAbove } from '../../src/services/apply/applyTarget';
import { codeSpanCitation, findCitations } from '../../src/protocol/citations';
import { redact, withoutTroubleshooting } from '../../src/services/providers/errors';
import { oneLine } from '../../src/services/tools/executor';
import { trimTrailingPunctuation } from '../../webview-ui/wordCut';
import { identifierUses } from '../../src/services/codeIntel/identifiers';
import { importSpecifiers } from '../../src/host/context/importSpecifiers';
import { strataKeysInSettingsText } from '../../src/host/settings/settingsFileKeys';
import { lineSourceCandidates } from '../../src/engine/excerptSources';
import { classifyRunsThings } from '../../src/services/apply/runsThings';

export interface RegexSite {
  /** Where the expressions live and what they read. */
  where: string;
  /** The characters the expressions treat specially (each gets a long run of its own). */
  specials: string;
  run(text: string): unknown;
}

/** The list: each row calls the exported function that runs the expressions. */
export const REGEX_SITES: readonly RegexSite[] = [
  { where: 'applyMerge.ts declarationHead: declaration and method heads (reply, file)', specials: ' ()<>:{};=*$_', run: declarationHead },
  { where: 'applyMerge.ts codeOf: string literals and comments (reply, file)', specials: `"'\`\\/#`, run: (t) => codeOf(t, true) },
  {
    where: 'applyMerge.ts declarationEnd: continuation and closing-bracket ends (reply, file)',
    specials: ` =>})];.:?"'\\`,
    run: (t) => declarationEnd([`function f() {`, t, '}'], 0),
  },
  {
    where: 'applyMerge.ts mergeBlock: whole-file, declaration and region matching (reply, file)',
    specials: '\r\n {}"\\',
    run: (t) => mergeBlock(`function g() {\n  return 1;\n}\n${t}\n`, `function g() {\n  return "${t}\n}`),
  },
  {
    where: 'applyMerge.ts IMPORT_LINE: the imports a whole-file block keeps (file)',
    specials: ' \t{},$=(*',
    run: (t) => mergeBlock(`const ${t}\nfunction f() {}\nfunction g() {}\n`, 'function f() {}\nfunction g() {}'),
  },
  { where: 'applyMerge.ts appendBlock: trailing line breaks (file)', specials: '\r\n', run: (t) => appendBlock(t, 'x') },
  { where: 'applyTarget.ts cleanPath: surrounding punctuation (reply)', specials: `"'\`(),;:.`, run: cleanPath },
  { where: 'applyTarget.ts looksLikePath: PATH_TOKEN (reply)', specials: './@$+-_', run: looksLikePath },
  { where: 'applyTarget.ts pathFromFenceInfo: title= attributes (reply)', specials: `="' :/.`, run: pathFromFenceInfo },
  { where: 'applyTarget.ts pathFromLineAbove: backticked paths, :line suffixes (reply)', specials: '`:#L-0/. *_', run: pathFromLineAbove },
  {
    where: 'applyTarget.ts matchScore: identifiers, bracket-only lines (reply, file)',
    specials: '{}()[];,$_',
    run: (t) => matchScore(t, t),
  },
  { where: 'runsThings.ts classifyRunsThings: paths of files that run things (reply)', specials: './-_*', run: classifyRunsThings },
  { where: 'citations.ts findCitations: IN_PROSE (reply)', specials: '+$@-./:#L0', run: findCitations },
  { where: 'citations.ts codeSpanCitation: WHOLE (reply)', specials: '+$@-./:#L0', run: codeSpanCitation },
  { where: 'errors.ts withoutTroubleshooting (server message)', specials: ' \n', run: withoutTroubleshooting },
  { where: 'errors.ts redact: key-like values (server message)', specials: ` "':=-_`, run: (t) => redact(t, 'sk-test-key') },
  { where: 'executor.ts oneLine: diagnostic messages (language server over the workspace)', specials: ' \n\t', run: oneLine },
  { where: 'wordCut.ts trimTrailingPunctuation: titles (reply)', specials: ' ,;:·—-', run: trimTrailingPunctuation },
  { where: 'identifiers.ts identifierUses: DECLARES (file)', specials: ' $_#', run: (t) => identifierUses(t, 1) },
  { where: 'importSpecifiers.ts importSpecifiers: BEFORE_SPECIFIER (file)', specials: `"'\`( .$`, run: importSpecifiers },
  {
    where: 'settingsFileKeys.ts: the key scanner and NUMBER (workspace settings)',
    specials: ', }]"/*{[:.eE+-0',
    run: (t) => strataKeysInSettingsText(t),
  },
  { where: 'excerptSources.ts lineSourceCandidates: path:line: (tool output)', specials: ':0a', run: lineSourceCandidates },
];

const SIZE = 50_000;

/** The adversarial inputs of `size` characters for one site. */
function inputs(site: RegexSite, size: number): { name: string; text: string }[] {
  const out: { name: string; text: string }[] = [
    { name: 'a 100 KB-class line of one letter', text: 'a'.repeat(size) },
    { name: 'an unclosed quote and backslash pairs', text: `x = "${'\\x'.repeat(size / 2)}` },
    { name: 'an unclosed single quote and backslash pairs', text: `'${'\\x'.repeat(size / 2)}` },
    { name: '+a runs', text: '+a'.repeat(size / 2) },
    { name: 'spaces then a letter', text: ' '.repeat(size) + 'x' },
  ];
  for (const ch of site.specials) {
    out.push({ name: `a run of ${JSON.stringify(ch)}`, text: ch.repeat(size) + '!' });
    out.push({ name: `${JSON.stringify(ch)} alternating with a letter`, text: (ch + 'a').repeat(size / 2) + '!' });
  }
  return out;
}

/** On-core milliseconds of `fn` (user and system time of this process, not wall clock). */
function cpuMs(fn: () => void): number {
  const before = process.cpuUsage();
  fn();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

/** The least of three runs: a busy machine only ever adds time. */
function timed(fn: () => void): number {
  return Math.min(cpuMs(fn), cpuMs(fn), cpuMs(fn));
}

describe('regular expressions over model output and workspace text run in linear time', () => {
  for (const site of REGEX_SITES) {
    it(site.where, () => {
      const small = inputs(site, SIZE);
      const large = inputs(site, 2 * SIZE);
      for (let i = 0; i < small.length; i++) {
        const t1 = timed(() => site.run(small[i].text));
        const t2 = timed(() => site.run(large[i].text));
        assert.ok(t2 <= 3 * t1 + 30, `${small[i].name}: ${t1.toFixed(1)} ms for ${SIZE} characters, ${t2.toFixed(1)} ms for ${2 * SIZE}`);
        assert.ok(t2 < 500, `${small[i].name}: ${t2.toFixed(1)} ms for ${2 * SIZE} characters`);
      }
    });
  }
});
