/**
 * What a chat id may be, in one place for the store (file names) and the protocol (the panel's
 * requests): 1–128 lowercase letters, digits, `-` and `_`, starting with a letter or digit, so an id
 * is never a path and names the same file on case-insensitive disks.
 */

/** The pattern of a chat id without anchors, for the names built on it (a chat file, a damaged one). */
export const CHAT_ID_SOURCE = '[a-z0-9][a-z0-9_-]{0,127}';
/** A whole chat id. */
export const CHAT_ID = new RegExp(`^${CHAT_ID_SOURCE}$`);
