'use strict';
// The private profile's user settings for `npm start`: a few keys are managed by the script (quiet
// defaults, and the imitation server's address with --imitate); everything else the person set in
// that profile is kept. A sidecar file remembers what the script wrote, so a later run without
// --imitate removes the imitation's (by then dead) address instead of leaving it behind, but never
// a value the person changed since.
const fs = require('node:fs');
const path = require('node:path');

/** Parses VS Code's settings.json dialect: JSON with comments and trailing commas. */
function parseJsonc(text) {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      out += c;
      if (c === '\\') {
        out += text[++i] ?? '';
      } else if (c === '"') {
        inString = false;
      }
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      i += 2;
      while (i < text.length && !(text[i] === '*' && text[i + 1] === '/')) i++;
      i++;
    } else {
      out += c;
    }
  }
  const json = withoutTrailingCommas(out);
  return json.trim() === '' ? {} : JSON.parse(json);
}

/** Drops commas followed only by whitespace and a closing bracket, outside strings. */
function withoutTrailingCommas(text) {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === '"') inString = false;
    } else if (c === ',' && /^\s*[}\]]/.test(text.slice(i + 1))) {
      // trailing comma: skip it
    } else {
      if (c === '"') inString = true;
      out += c;
    }
  }
  return out;
}

function readJson(file, fallback) {
  try {
    return parseJsonc(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    if (err.code === 'ENOENT') return fallback;
    throw err;
  }
}

/**
 * Writes `managed` into `<userDataDir>/User/settings.json`, removing keys this function wrote on a
 * previous run that are no longer managed (unless the person changed them). `undefined` values are
 * removed too. Returns the settings as written.
 * @param {string} userDataDir
 * @param {Record<string, unknown>} managed
 */
function applyManagedSettings(userDataDir, managed) {
  const file = path.join(userDataDir, 'User', 'settings.json');
  const sidecar = path.join(userDataDir, 'strata-start-managed.json');
  let settings;
  try {
    settings = readJson(file, {});
  } catch (err) {
    // A file the person broke by hand: keep it aside rather than guess.
    const aside = `${file}.unreadable-${Date.now()}`;
    fs.renameSync(file, aside);
    process.stderr.write(`start: ${file} could not be read (${err.message}); moved to ${aside}\n`);
    settings = {};
  }
  const previous = readJson(sidecar, {});
  for (const [key, value] of Object.entries(previous)) {
    if (!(key in managed) && JSON.stringify(settings[key]) === JSON.stringify(value)) delete settings[key];
  }
  const written = {};
  for (const [key, value] of Object.entries(managed)) {
    if (value === undefined) {
      delete settings[key];
    } else {
      settings[key] = value;
      written[key] = value;
    }
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(settings, null, 2)}\n`);
  fs.writeFileSync(sidecar, `${JSON.stringify(written, null, 2)}\n`);
  return settings;
}

module.exports = { parseJsonc, applyManagedSettings };
