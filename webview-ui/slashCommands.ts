import { rankFuzzy } from '../src/common/fuzzy';
import type { SlashHostCommand } from '../src/protocol/mentions';

/** What a `/` command does when picked. */
export type SlashAction =
  | { kind: 'newChat' }
  | { kind: 'model' }
  | { kind: 'host'; name: SlashHostCommand }
  /** Attach the selection (or the active file) and put this text, editable, into the input. */
  | { kind: 'template'; text: (target: string) => string };

export interface SlashCommand {
  name: string;
  description: string;
  icon: string;
  action: SlashAction;
}

export const SLASH_COMMANDS: readonly SlashCommand[] = [
  {
    name: 'explain',
    description: 'Explain the selection or the active file',
    icon: 'book',
    action: { kind: 'template', text: (t) => `Explain ${t}: what it does, how it works, and anything surprising.` },
  },
  {
    name: 'fix',
    description: 'Find and fix problems in the selection or the active file',
    icon: 'wrench',
    action: { kind: 'template', text: (t) => `Find the bugs in ${t} and fix them. Show the corrected code and say what was wrong.` },
  },
  {
    name: 'tests',
    description: 'Write tests for the selection or the active file',
    icon: 'beaker',
    action: { kind: 'template', text: (t) => `Write unit tests for ${t}, covering the edge cases, in the style of this project's tests.` },
  },
  { name: 'new', description: 'Start a new chat', icon: 'add', action: { kind: 'newChat' } },
  { name: 'model', description: 'Choose the model', icon: 'sparkle', action: { kind: 'model' } },
  {
    name: 'compact',
    description: 'Compact older context: the next request shrinks to the target (Strata: Compact Now)',
    icon: 'fold',
    action: { kind: 'host', name: 'compact' },
  },
  { name: 'cost', description: "Show this chat's cost (Strata: Show Chat Cost)", icon: 'graph', action: { kind: 'host', name: 'cost' } },
];

/** The commands matching `query` (what follows `/`), best first. */
export function matchSlashCommands(query: string): { command: SlashCommand; matches: number[] }[] {
  return rankFuzzy(query, SLASH_COMMANDS, (c) => c.name, SLASH_COMMANDS.length).map(({ item, match }) => ({
    command: item,
    // The label shows the leading `/`.
    matches: match.positions.map((p) => p + 1),
  }));
}
