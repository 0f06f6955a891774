/** Which Python runs the server, and whether it can: the interpreter order and the probe of its version. */

import { execFile } from "node:child_process";
import { DEFAULT_IMPORT_STRATEGY, ImportStrategy, needsMiogenInEnvironment } from "./bundle";
import { MIN_PYTHON } from "./constants";

export type InterpreterSource = "setting" | "pythonExtension" | "default";

export interface InterpreterChoice {
  /** Executable path or name (resolved on PATH by the OS). */
  path: string;
  source: InterpreterSource;
}

export const DEFAULT_INTERPRETER = "python3";

/**
 * The setting `miogen.interpreter` wins, then the Python extension's active environment (when that
 * optional extension is installed and has one), then `python3` from PATH.
 */
export function chooseInterpreter(candidates: { setting?: string; pythonExtension?: string }): InterpreterChoice {
  const setting = candidates.setting?.trim();
  if (setting) {
    return { path: setting, source: "setting" };
  }
  const fromExtension = candidates.pythonExtension?.trim();
  if (fromExtension) {
    return { path: fromExtension, source: "pythonExtension" };
  }
  return { path: DEFAULT_INTERPRETER, source: "default" };
}

/**
 * Printed by the probe; written to run (and fail politely) even on Python 2. What the platform
 * lacks comes from the server's own answer (miogen.common.platform_support.missing_requirements) when
 * miogen is installed, else from the same two checks made here.
 */
export const PROBE_SCRIPT = [
  "import sys, os, json",
  "try:",
  "    import importlib.util as u",
  "    has = u.find_spec('miogen') is not None",
  "    serve = has and u.find_spec('miogen.__main__') is not None",
  "    limits = u.find_spec('resource') is not None",
  "    numpy = u.find_spec('numpy') is not None",
  "except Exception:",
  "    has = serve = limits = numpy = False",
  "try:",
  "    from miogen.common.platform_support import missing_requirements",
  "    missing = missing_requirements()",
  "except Exception:",
  "    missing = [n for n, ok in (('resource', limits), ('os.killpg', hasattr(os, 'killpg'))) if not ok]",
  "print(json.dumps({'version': list(sys.version_info[:3]), 'executable': sys.executable, 'miogen': has, 'serve': serve, 'numpy': numpy, 'sandbox': not missing, 'missing': missing, 'platform': sys.platform}))",
].join("\n");

export type ProblemKind = "notFound" | "failed" | "tooOld" | "unsupported" | "noMiogen" | "noServer";

export type Verdict =
  /**
   * `numpy`: whether the interpreter has it (the genetic algorithms need it; the bundle lacks it).
   * `ownMiogen`: the interpreter has a miogen of its own besides the bundle's (with "useBundled").
   */
  | { ok: true; executable: string; version: string; numpy?: boolean; ownMiogen?: boolean }
  /** `executable`: the interpreter's own path, when it ran. */
  | { ok: false; problem: ProblemKind; message: string; executable?: string };

/** What running the probe gave: an error (spawn or exit code) and/or its stdout. */
export interface ProbeOutput {
  error?: { code?: string | number; message: string };
  stdout: string;
  stderr?: string;
}

const SOURCE_LABEL: Record<InterpreterSource, string> = {
  setting: "from the setting miogen.interpreter",
  pythonExtension: "the Python extension's active environment",
  default: "the default, python3 on PATH",
};

/**
 * Turns the probe's output into one clear verdict (the message is what the user sees). With the
 * bundled server ("useBundled") the interpreter needs no miogen; with "fromEnvironment" it must have it.
 */
export function judgeProbe(choice: InterpreterChoice, output: ProbeOutput, strategy: ImportStrategy = DEFAULT_IMPORT_STRATEGY): Verdict {
  const where = `${choice.path} (${SOURCE_LABEL[choice.source]})`;
  const wanted = needsMiogenInEnvironment(strategy) ? "a Python 3.11+ with miogen installed" : "a Python 3.11 or newer";
  if (output.error?.code === "ENOENT" || output.error?.code === "EACCES") {
    return {
      ok: false,
      problem: "notFound",
      message: `miogen: cannot run the Python interpreter ${where}. Set "miogen.interpreter" to ${wanted}.`,
    };
  }
  const info = parseProbe(output.stdout);
  if (!info) {
    const detail = (output.stderr ?? output.error?.message ?? "").trim().split("\n").pop() ?? "";
    return {
      ok: false,
      problem: "failed",
      message: `miogen: the Python interpreter ${where} did not start${detail ? `: ${detail}` : ""}. Set "miogen.interpreter" to ${wanted}.`,
    };
  }
  const version = info.version.join(".");
  if (!isAtLeast(info.version, MIN_PYTHON)) {
    return {
      ok: false,
      problem: "tooOld",
      message: `miogen needs Python ${MIN_PYTHON.join(".")} or newer, but ${where} is Python ${version}. Set "miogen.interpreter" to a newer interpreter.`,
    };
  }
  const executable = info.executable || choice.path;
  if (info.sandbox === false) {
    return {
      ok: false,
      problem: "unsupported",
      message: `miogen cannot run with ${where} on ${info.platform || "this platform"}: its worker sandbox needs POSIX resource limits and process groups (${info.missing?.length ? info.missing.join(", ") : "the 'resource' module"} missing). Use Linux or macOS (on Windows, WSL).`,
      executable,
    };
  }
  if (!needsMiogenInEnvironment(strategy)) {
    return { ok: true, executable, version, numpy: info.numpy, ...(info.miogen ? { ownMiogen: true } : {}) };
  }
  const instead = `or set "miogen.importStrategy" to "useBundled" (the server that comes with the extension; nothing to install)`;
  if (!info.miogen) {
    return {
      ok: false,
      problem: "noMiogen",
      message: `miogen is not installed in ${where} (Python ${version}), which "miogen.importStrategy": "fromEnvironment" asks to run it from. Install miogen there yourself, set "miogen.interpreter" to an environment that has it, ${instead}.`,
      executable,
    };
  }
  if (info.serve === false) {
    return {
      ok: false,
      problem: "noServer",
      message: `The miogen installed in ${where} (Python ${version}) has no language server ("python -m miogen serve"). Upgrade it there, set "miogen.interpreter" to an environment with a current miogen, ${instead}.`,
      executable,
    };
  }
  return { ok: true, executable, version, numpy: info.numpy };
}

export function isAtLeast(version: readonly number[], minimum: readonly number[]): boolean {
  for (let i = 0; i < minimum.length; i++) {
    const v = version[i] ?? 0;
    if (v !== minimum[i]) return v > minimum[i];
  }
  return true;
}

function parseProbe(
  stdout: string,
):
  | {
      version: number[];
      executable: string;
      miogen: boolean;
      serve?: boolean;
      numpy?: boolean;
      sandbox?: boolean;
      missing?: string[];
      platform?: string;
    }
  | undefined {
  const line = stdout.trim().split("\n").pop();
  if (!line) return undefined;
  try {
    const data = JSON.parse(line);
    if (!Array.isArray(data.version) || !data.version.every((n: unknown) => typeof n === "number")) return undefined;
    return {
      version: data.version,
      executable: String(data.executable ?? ""),
      miogen: data.miogen === true,
      serve: typeof data.serve === "boolean" ? data.serve : undefined,
      numpy: typeof data.numpy === "boolean" ? data.numpy : undefined,
      sandbox: typeof data.sandbox === "boolean" ? data.sandbox : undefined,
      missing: Array.isArray(data.missing) ? data.missing.map(String) : undefined,
      platform: typeof data.platform === "string" ? data.platform : undefined,
    };
  } catch {
    return undefined;
  }
}

export type ProbeRunner = (file: string, args: string[], options?: { timeoutMs?: number }) => Promise<ProbeOutput>;

/** Runs a program with a timeout (15 s unless given) and collects its output; never rejects. */
export const execFileRunner: ProbeRunner = (file, args, options = {}) =>
  new Promise((resolve) => {
    const maxBuffer = 16 * 1024 * 1024;
    execFile(file, args, { timeout: options.timeoutMs ?? 15_000, windowsHide: true, maxBuffer }, (error, stdout, stderr) => {
      const err = error as (NodeJS.ErrnoException & { code?: string | number }) | null;
      resolve({
        error: err ? { code: err.code, message: err.message } : undefined,
        stdout: String(stdout ?? ""),
        stderr: String(stderr ?? ""),
      });
    });
  });

/** Checks that `choice` is a Python >= 3.11 that can run the server (with miogen importable, for "fromEnvironment"). */
export async function probeInterpreter(
  choice: InterpreterChoice,
  strategy: ImportStrategy = DEFAULT_IMPORT_STRATEGY,
  run: ProbeRunner = execFileRunner,
): Promise<Verdict> {
  return judgeProbe(choice, await run(choice.path, ["-c", PROBE_SCRIPT]), strategy);
}
