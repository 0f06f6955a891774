import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import {
  chooseInterpreter,
  execFileRunner,
  isAtLeast,
  judgeProbe,
  probeInterpreter,
  PROBE_SCRIPT,
  ProbeOutput,
} from "../common/python";

const probe = (version: number[], miogen = true, executable = "/venv/bin/python", numpy = true): ProbeOutput => ({
  stdout: `${JSON.stringify({ version, executable, miogen, numpy })}\n`,
});

describe("chooseInterpreter", () => {
  it("prefers the setting", () => {
    assert.deepEqual(chooseInterpreter({ setting: "/a/python", pythonExtension: "/b/python" }), {
      path: "/a/python",
      source: "setting",
    });
  });

  it("then the Python extension's active environment", () => {
    assert.deepEqual(chooseInterpreter({ setting: "  ", pythonExtension: "/b/python" }), {
      path: "/b/python",
      source: "pythonExtension",
    });
  });

  it("then python3", () => {
    assert.deepEqual(chooseInterpreter({}), { path: "python3", source: "default" });
  });
});

describe("judgeProbe", () => {
  const setting = { path: "/venv/bin/python", source: "setting" as const };

  it("accepts Python 3.11+ with miogen", () => {
    for (const strategy of ["useBundled", "fromEnvironment"] as const) {
      const verdict = judgeProbe(setting, probe([3, 11, 7]), strategy);
      assert.deepEqual({ ...verdict, ownMiogen: undefined }, { ok: true, executable: "/venv/bin/python", version: "3.11.7", numpy: true, ownMiogen: undefined });
      assert.equal(judgeProbe(setting, probe([3, 13, 0]), strategy).ok, true);
    }
  });

  it("with the bundled server (the default), accepts a plain Python 3.11+ without miogen and tells whether numpy is there", () => {
    const bare = probe([3, 11, 7], false, "/plain/bin/python", false);
    assert.deepEqual(judgeProbe(setting, bare), { ok: true, executable: "/plain/bin/python", version: "3.11.7", numpy: false });
    assert.deepEqual(judgeProbe(setting, bare, "useBundled"), judgeProbe(setting, bare));
    assert.deepEqual(judgeProbe(setting, probe([3, 12, 0], true, "/dev/bin/python")), {
      ok: true,
      executable: "/dev/bin/python",
      version: "3.12.0",
      numpy: true,
      ownMiogen: true,
    });
    const old = judgeProbe(setting, probe([3, 10, 4], false), "useBundled");
    assert.equal(old.ok, false, "the bundle does not make an old Python new");
  });

  it("rejects an older Python with one clear message", () => {
    const verdict = judgeProbe(setting, probe([3, 10, 12]));
    assert.equal(verdict.ok, false);
    if (verdict.ok) return;
    assert.equal(verdict.problem, "tooOld");
    assert.equal(
      verdict.message,
      'miogen needs Python 3.11 or newer, but /venv/bin/python (from the setting miogen.interpreter) is Python 3.10.12. Set "miogen.interpreter" to a newer interpreter.',
    );
  });

  it("with fromEnvironment, says miogen is missing and points to the bundle, installing nothing", () => {
    const verdict = judgeProbe({ path: "python3", source: "default" }, probe([3, 12, 1], false, "/usr/bin/python3"), "fromEnvironment");
    assert.equal(verdict.ok, false);
    if (verdict.ok) return;
    assert.equal(verdict.problem, "noMiogen");
    assert.match(verdict.message, /miogen is not installed in python3 \(the default, python3 on PATH\) \(Python 3\.12\.1\)/);
    assert.match(verdict.message, /"miogen\.importStrategy" to "useBundled"/);
    assert.doesNotMatch(verdict.message, /pip install/, "no command that installs an unpinned name");
  });

  it("reports a miogen without the server module (fromEnvironment)", () => {
    const verdict = judgeProbe(
      setting,
      { stdout: JSON.stringify({ version: [3, 11, 7], executable: "/venv/bin/python", miogen: true, serve: false }) },
      "fromEnvironment",
    );
    assert.equal(verdict.ok, false);
    if (verdict.ok) return;
    assert.equal(verdict.problem, "noServer");
    assert.match(verdict.message, /has no language server \("python -m miogen serve"\)/);
  });

  it("reports an interpreter that cannot be run", () => {
    const verdict = judgeProbe(setting, { error: { code: "ENOENT", message: "spawn ENOENT" }, stdout: "" });
    assert.equal(verdict.ok, false);
    if (!verdict.ok) assert.equal(verdict.problem, "notFound");
  });

  it("reports an interpreter whose probe fails, with its last error line", () => {
    const verdict = judgeProbe(setting, { error: { code: 1, message: "exit 1" }, stdout: "", stderr: "Traceback\nSyntaxError: bad" });
    assert.equal(verdict.ok, false);
    if (verdict.ok) return;
    assert.equal(verdict.problem, "failed");
    assert.match(verdict.message, /did not start: SyntaxError: bad/);
  });

  it("refuses a platform without the sandbox's resource module, before looking for miogen", () => {
    const verdict = judgeProbe(setting, {
      stdout: JSON.stringify({ version: [3, 12, 0], executable: "C:/py/python.exe", miogen: false, sandbox: false, platform: "win32" }),
    });
    assert.equal(verdict.ok, false);
    if (verdict.ok) return;
    assert.equal(verdict.problem, "unsupported");
    assert.match(verdict.message, /on win32: its worker sandbox needs POSIX resource limits/);
  });

  it("has the probe ask the platform for real, as on Windows when resource and os.killpg are faked away", async () => {
    const venv = path.resolve(__dirname, "..", "..", "..", ".venv", "bin", "python");
    const pythons = ["python3", ...(existsSync(venv) ? [venv] : [])]; // without miogen, and with it
    const fake = "import sys, os; sys.modules['resource'] = None; del os.killpg; sys.platform = 'win32'\n";
    for (const python of pythons) {
      const here = await execFileRunner(python, ["-c", PROBE_SCRIPT]);
      assert.equal(JSON.parse(here.stdout).sandbox, true, python);
      const windows = await execFileRunner(python, ["-c", fake + PROBE_SCRIPT]);
      const verdict = judgeProbe({ path: python, source: "setting" }, windows);
      assert.equal(verdict.ok, false, windows.stderr);
      if (verdict.ok) return;
      assert.equal(verdict.problem, "unsupported", python);
      assert.match(verdict.message, /on win32: .*\(resource, os\.killpg missing\)\. Use Linux or macOS \(on Windows, WSL\)/);
    }
  });

  it("uses the last line of stdout (site packages may print before)", () => {
    assert.equal(judgeProbe(setting, { stdout: `hello\n${probe([3, 11, 0]).stdout}` }).ok, true);
  });
});

describe("isAtLeast", () => {
  it("compares versions component-wise", () => {
    assert.equal(isAtLeast([3, 11, 0], [3, 11]), true);
    assert.equal(isAtLeast([3, 9, 18], [3, 11]), false);
    assert.equal(isAtLeast([4, 0], [3, 11]), true);
    assert.equal(isAtLeast([2, 7, 18], [3, 11]), false);
  });
});

describe("probeInterpreter", () => {
  it("runs the probe script with the chosen interpreter", async () => {
    const calls: string[][] = [];
    const verdict = await probeInterpreter({ path: "/p/python", source: "setting" }, "fromEnvironment", async (file, args) => {
      calls.push([file, ...args]);
      return probe([3, 11, 9]);
    });
    assert.deepEqual(calls, [["/p/python", "-c", PROBE_SCRIPT]]);
    assert.equal(verdict.ok, true);
  });

  it("reports a missing executable for real", async () => {
    const verdict = await probeInterpreter({ path: "/nonexistent/bin/python", source: "setting" }, "useBundled", execFileRunner);
    assert.equal(verdict.ok, false);
    if (!verdict.ok) assert.equal(verdict.problem, "notFound");
  });
});
