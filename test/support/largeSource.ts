/**
 * A generated TypeScript module of about 20,000 o200k tokens (150 exported functions): larger than a
 * local model's 4K or 8K window, for the small-window integration and e2e tests.
 */
export function largeSource(): string {
  const out: string[] = ['// A generated module for the small-window tests.'];
  for (let i = 0; i < 150; i++) {
    out.push(`export function ledgerEntry${i}(amount: number, rate: number, label: string): string {`);
    for (let j = 0; j < 6; j++)
      out.push(`  const step${j} = Math.round((amount + ${i * 7 + j}) * rate * 100) / 100; // rounding step ${j} of entry ${i}`);
    out.push(`  return \`\${label}: \${step0 + step1 + step2 + step3 + step4 + step5}\`;`, '}', '');
  }
  return out.join('\n');
}
