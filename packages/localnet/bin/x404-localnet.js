#!/usr/bin/env node
// The local chain (packages/localnet/src/main.ts), compiled by the repository's `npm run build`.
import '../dist/main.js';
