import { percentOf, type Cents } from './money';

export type Region = 'EU-DE' | 'EU-FR' | 'EU-NL' | 'US-CA' | 'NONE';

/** Standard rates in percent. Reduced rates apply to the categories listed in REDUCED. */
const STANDARD: Record<Region, number> = {
  'EU-DE': 19,
  'EU-FR': 20,
  'EU-NL': 21,
  'US-CA': 7.25,
  NONE: 0,
};

const REDUCED: Partial<Record<Region, { rate: number; categories: string[] }>> = {
  'EU-DE': { rate: 7, categories: ['books', 'food'] },
  'EU-FR': { rate: 5.5, categories: ['books', 'food'] },
  'EU-NL': { rate: 9, categories: ['books', 'food', 'medicine'] },
};

export function taxRate(region: Region, category?: string): number {
  const reduced = REDUCED[region];
  if (category && reduced && reduced.categories.includes(category)) {
    return reduced.rate;
  }
  return STANDARD[region];
}

export function taxFor(net: Cents, region: Region, category?: string): Cents {
  return percentOf(net, taxRate(region, category));
}
