/**
 * Which miogen runs the server (`miogen.importStrategy`, as Microsoft's Python tool extensions have
 * it): the one bundled with the extension (default), started with the chosen interpreter, or the one
 * installed in that interpreter. The extension never installs anything into the user's environment.
 * Pure: paths and facts come in as arguments.
 */

import * as path from "node:path";

export type ImportStrategy = "useBundled" | "fromEnvironment";
export const IMPORT_STRATEGIES: readonly ImportStrategy[] = ["useBundled", "fromEnvironment"];
export const DEFAULT_IMPORT_STRATEGY: ImportStrategy = "useBundled";

/** The launcher in the VSIX (bundled/tool/serve.py) and the folder it runs miogen from. */
export const BUNDLE_LAUNCHER = ["bundled", "tool", "serve.py"] as const;
export const BUNDLE_LIBS = ["bundled", "libs"] as const;
/** Runs `-m MODULE` with the bundle appended to sys.path (bundled/tool/run_module.py). */
export const MODULE_RUNNER = ["bundled", "tool", "run_module.py"] as const;
/** What `python -m` runs with "fromEnvironment". */
export const ENVIRONMENT_SERVER_ARGS = ["-m", "miogen", "serve"];

/** The process that serves: the interpreter with either the bundle's launcher or `-m miogen serve`. */
export interface ServerLaunch {
  command: string;
  args: string[];
}

export function serverLaunch(strategy: ImportStrategy, python: string, extensionRoot: string): ServerLaunch {
  if (strategy === "fromEnvironment") return { command: python, args: [...ENVIRONMENT_SERVER_ARGS] };
  return { command: python, args: [path.join(extensionRoot, ...BUNDLE_LAUNCHER)] };
}

/**
 * The interpreter's arguments `-m MODULE ARGS...` (pytest, coverage.py) for a run of the Testing
 * view: with the bundled server, through the module runner, so that pytest and coverage.py come
 * from the interpreter when it has them and from the bundle when it has not. Other arguments, and
 * "fromEnvironment", as they are.
 */
export function withBundleFallback(args: readonly string[], strategy: ImportStrategy, extensionRoot: string): string[] {
  if (strategy !== "useBundled" || args[0] !== "-m" || args.length < 2) return [...args];
  return [path.join(extensionRoot, ...MODULE_RUNNER), ...args.slice(1)];
}

/** Whether miogen must be importable from the interpreter itself (the probe then insists on it). */
export function needsMiogenInEnvironment(strategy: ImportStrategy): boolean {
  return strategy === "fromEnvironment";
}

/**
 * Why the bundled server cannot start from this installation of the extension (a build without the
 * bundle: `npm run package` makes it), or undefined. `exists(file)` tells whether a file is there.
 */
export function bundleProblem(strategy: ImportStrategy, extensionRoot: string, exists: (file: string) => boolean): string | undefined {
  if (strategy !== "useBundled") return undefined;
  const main = path.join(extensionRoot, ...BUNDLE_LIBS, "miogen", "__main__.py");
  if (exists(main) && exists(path.join(extensionRoot, ...BUNDLE_LAUNCHER))) return undefined;
  return (
    `miogen: this build of the extension carries no bundled server (${path.join(extensionRoot, ...BUNDLE_LIBS)} is missing; ` +
    `"npm run package" bundles it). Set "miogen.importStrategy" to "fromEnvironment" to use the miogen installed in the interpreter.`
  );
}

/** The algorithms that rank tests with numpy (miogen.common.records.Algorithm.genetic). */
export const NUMPY_ALGORITHMS: readonly string[] = ["dynamosa", "adynamosa", "adynamosa-nonadaptive"];

/**
 * The warning when the chosen algorithm needs numpy and the interpreter has none: the bundle carries
 * only pure-Python packages (numpy is compiled per Python version and platform), so numpy comes from
 * the interpreter's environment. Undefined when nothing is missing.
 */
export function numpyProblem(algorithm: string, hasNumpy: boolean | undefined, python: string): string | undefined {
  if (hasNumpy !== false || !NUMPY_ALGORITHMS.includes(algorithm)) return undefined;
  return (
    `miogen: the algorithm "${algorithm}" needs numpy, which ${python} does not have (the extension bundles only ` +
    `pure-Python packages). Install numpy into that environment, or set "miogen.algorithm" to "mio" (the default), which does not need it.`
  );
}
