#!/usr/bin/env node
'use strict';
// `npm start`: until the chat panel ships, replays a sample conversation through the real engine
// and prints, per turn, the tokens of each layer and what each provider's prompt cache would serve,
// for Strata's two layouts side by side. `npm start -- <trajectory.json>` replays another one.
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const root = path.resolve(__dirname, '..');
const built = spawnSync(process.execPath, [path.join(__dirname, 'ensure-built.js')], { stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status || 1);

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--')) || path.join(root, 'test', 'fixtures', 'trajectories', 'walkthrough-6.json');
const rest = args.filter((a) => a !== file);
if (!rest.some((a) => a.startsWith('--strategy') || a.startsWith('--layout'))) rest.push('--strategy', 'transcript,library');
const r = spawnSync(process.execPath, [path.join(root, 'out', 'bench', 'replay.js'), file, ...rest], { stdio: 'inherit' });
process.exit(r.status === null ? 1 : r.status);
