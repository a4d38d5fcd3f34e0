// The package's own manifest, the one place its version is written. tsc copies it beside the build
// (dist/package.json) so the compiled module finds it at the same relative path.
import manifest from '../package.json';

/** This package's name and version, as servers see them in initialize's clientInfo (and log them). */
export const PACKAGE_INFO = { name: manifest.name, version: manifest.version } as const;
