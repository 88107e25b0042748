/**
 * When a command that writes, imports or accepts asks the user first. Another extension, a
 * keybinding or a link can run a command with any argument, so an argument may choose the file or
 * the change but never stands in for the user's yes: only a choice the user made in the editor's
 * own dialog, or the diff the user is looking at, needs no further question. No vscode import: unit
 * tests load this file in plain Node; commandConsent.ts and changeApplier.ts ask what it decides.
 */

/** The question `strata.exportChat` and `strata.importChat` put to the user. */
export interface ConsentQuestion {
  action: 'export' | 'import';
  /** The file written or read, as the user would recognise it. */
  target: string;
}

/**
 * The question before exporting to or importing from a file, or undefined when none is needed.
 * `fileArgument`: the label of the file the command was run with (a URI argument); undefined when
 * the command shows the save or open dialog, where the user's choice of the file is the yes.
 */
export function fileCommandQuestion(action: 'export' | 'import', fileArgument: string | undefined): ConsentQuestion | undefined {
  return fileArgument === undefined ? undefined : { action, target: fileArgument };
}

/** The proposal `strata.acceptChange` and `strata.rejectChange` act on: the argument's, the one in front, else the newest. */
export function proposalFor<P>(byArgument: P | undefined, inFront: P | undefined, newest: P | undefined): P | undefined {
  return byArgument ?? inFront ?? newest;
}

/**
 * The question before accepting `proposal`, or undefined: none only when its diff is the active tab
 * (the user is looking at exactly this change). Run without an argument, with the URI of a diff in
 * the background, or with the newest of several, it asks.
 */
export function acceptQuestion<P extends { path: string }>(
  proposal: P,
  inFront: P | undefined,
): { kind: 'accept'; path: string } | undefined {
  return inFront === proposal ? undefined : { kind: 'accept', path: proposal.path };
}

/**
 * The question at Accept for a file that runs things (runsThings.ts), or undefined: asked when the
 * file is one now (`risk`) and the user did not confirm that risk when the change was proposed (it
 * may have become one since, a link swapped in).
 */
export function runsThingsAtAcceptQuestion(
  path: string,
  risk: string | undefined,
  confirmedWhenProposed: boolean,
): { kind: 'runsThings'; path: string; risk: string } | undefined {
  return risk !== undefined && !confirmedWhenProposed ? { kind: 'runsThings', path, risk } : undefined;
}
