/** One benchmark target and how this run measured against it (a file of its own: every part of the benchmark reports targets). */
export interface Target {
  id: string;
  description: string;
  measured: string;
  /** n/a: the target does not apply (e.g. a trajectory that needs pruning). */
  status: 'met' | 'missed' | 'n/a';
  /** What stands in the way, when missed. */
  note?: string;
}
