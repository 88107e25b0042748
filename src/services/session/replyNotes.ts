/**
 * The notes under a reply that say what the model did not see: a file attached with that message
 * and sent cut to fit the model's window (or as its outline, or not at all), and a server that cut
 * the prompt on its own. Made from the turn's saved metadata, so they are there after a reload too.
 */
import type { PruneReport } from '../../engine/types';
import type { TurnMeta } from '../store/chatTypes';
import { sourceOfKey } from '../ledgerTree';
import { parseModelLabel } from '../pricing/prices';
import { serverCutNote } from '../turn/serverCut';

export function replyNotes(meta: TurnMeta | undefined): string[] {
  if (!meta) return [];
  const notes: string[] = [];
  // An item cut twice in one build (its outline, then the lines that fit) is said once, as sent.
  const last = new Map<string, PruneReport>();
  for (const p of meta.prunedReports ?? []) if (p.layer === 'L3') last.set(p.item, p);
  for (const p of last.values()) {
    const src = sourceOfKey(p.item);
    const name = src ? (src.startLine !== undefined ? `${src.path}:L${src.startLine}-${src.endLine}` : src.path) : p.item;
    if (p.reason === 'fitted')
      notes.push(
        `${name} is larger than this model's context window leaves room for: the model saw ${p.kept}, not the rest (see Context Layers).`,
      );
    else if (p.reason === 'compacted')
      notes.push(`${name} was sent as its outline to fit the context window: ${p.kept} (see Context Layers).`);
    else if (p.reason === 'budget') notes.push(`${name} was not sent: it does not fit this model's context window (see Context Layers).`);
  }
  if (meta.serverCut) notes.push(serverCutNote(meta.serverCut, parseModelLabel(meta.provider, meta.model)?.model ?? 'this model'));
  return notes;
}
