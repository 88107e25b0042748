'use strict';
// Small process helpers shared by the test and harness scripts.
const { spawn } = require('node:child_process');
const fs = require('node:fs');

/**
 * Runs a command, streaming its output (or appending it to `logFile`). Resolves with the exit code;
 * never rejects on a non-zero exit.
 */
function run(command, args, options = {}) {
  const { logFile, ...spawnOptions } = options;
  return new Promise((resolve, reject) => {
    // No stdin: nothing a test step runs may stop to ask a question.
    let stdio = ['ignore', 'inherit', 'inherit'];
    let fd;
    if (logFile) {
      fd = fs.openSync(logFile, 'a');
      stdio = ['ignore', fd, fd];
    }
    const child = spawn(command, args, { stdio, ...spawnOptions });
    child.on('error', (err) => {
      if (fd !== undefined) fs.closeSync(fd);
      reject(err);
    });
    child.on('close', (code, signal) => {
      if (fd !== undefined) fs.closeSync(fd);
      resolve(code === null ? `signal ${signal}` : code);
    });
  });
}

/** process.env without the npm_* variables an outer `npm run` sets (they would leak into nested npm calls). */
function cleanEnv(extra = {}) {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(key)) env[key] = value;
  }
  return { ...env, ...extra };
}

function formatSeconds(ms) {
  return `${(ms / 1000).toFixed(1)} s`;
}

module.exports = { run, cleanEnv, formatSeconds };
