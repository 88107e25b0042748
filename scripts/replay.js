#!/usr/bin/env node
'use strict';
// `npm run replay`: replays a scripted conversation through the real engine (bench/replayCli.ts) and
// prints, per turn, the tokens of each layer and what each provider's prompt cache would serve.
// Without arguments it is the demo: the sample walkthrough, Strata's two layouts side by side.
// With arguments they go to the replay CLI as they are (`npm run replay -- <trajectory.json> …`).
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const root = path.resolve(__dirname, '..');
const built = spawnSync(process.execPath, [path.join(__dirname, 'ensure-built.js')], { stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status || 1);

let args = process.argv.slice(2);
if (args.length === 0) {
  args = [path.join(root, 'test', 'fixtures', 'trajectories', 'walkthrough-6.json'), '--strategy', 'transcript,library'];
}
const r = spawnSync(process.execPath, [path.join(root, 'out', 'bench', 'replayCli.js'), ...args], { stdio: 'inherit' });
process.exit(r.status === null ? 1 : r.status);
