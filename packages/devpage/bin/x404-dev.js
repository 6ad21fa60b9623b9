#!/usr/bin/env node
// `npm run dev` (packages/devpage/src/dev.ts), compiled by the repository's `npm run build`.
import '../dist/dev.js';
