/** An amount of money in integer cents. */
export type Cents = number;

export function cents(value: number): Cents {
  if (!Number.isSafeInteger(value)) {
    throw new RangeError(`not a whole number of cents: ${value}`);
  }
  return value;
}

/** Rounds half to even (banker's rounding), the rule used for tax. */
export function roundHalfEven(value: number): Cents {
  const floor = Math.floor(value);
  const diff = value - floor;
  if (diff > 0.5) return floor + 1;
  if (diff < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}

/** Applies a percentage (e.g. 19 for 19 %) to an amount, rounding half to even. */
export function percentOf(amount: Cents, percent: number): Cents {
  return roundHalfEven((amount * percent) / 100);
}

export function formatCents(amount: Cents, currency = 'EUR'): string {
  const sign = amount < 0 ? '-' : '';
  const abs = Math.abs(amount);
  const whole = Math.floor(abs / 100).toLocaleString('en-US');
  const fraction = String(abs % 100).padStart(2, '0');
  return `${sign}${whole}.${fraction} ${currency}`;
}
