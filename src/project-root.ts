// Where the project's own files (migrations/, assets/) are, for code that reads them at run time.
//
// This module sits directly in src/, so it is one folder below the project root however the server runs: as
// src/project-root.ts under tsx, as dist/project-root.js transpiled file by file, and inside dist/server.js when the
// build bundles the server into one file (scripts/build.ts). A path relative to a deeper module would break in the
// bundle, whose every module has the bundle's own location.
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));
