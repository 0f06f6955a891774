import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { describe, it } from "node:test";
import {
  BUNDLE_LAUNCHER,
  bundleProblem,
  DEFAULT_IMPORT_STRATEGY,
  IMPORT_STRATEGIES,
  MODULE_RUNNER,
  numpyProblem,
  serverLaunch,
  withBundleFallback,
} from "../common/bundle";
import { DEFAULT_SETTINGS, readSettings } from "../common/settings";

const extensionRoot = path.resolve(__dirname, "..", "..");
const manifest = JSON.parse(readFileSync(path.join(extensionRoot, "package.json"), "utf8"));

describe("miogen.importStrategy", () => {
  it("is declared with the bundled server as its default, as the code has it", () => {
    const spec = manifest.contributes.configuration.properties["miogen.importStrategy"];
    assert.deepEqual(spec.enum, [...IMPORT_STRATEGIES]);
    assert.equal(spec.default, DEFAULT_IMPORT_STRATEGY);
    assert.equal(DEFAULT_IMPORT_STRATEGY, "useBundled");
    assert.equal(spec.enumDescriptions.length, spec.enum.length);
  });

  it("reads the setting, falling back to the bundle for junk", () => {
    const read = (value: unknown) => readSettings((key) => (key === "importStrategy" ? value : undefined)).importStrategy;
    assert.equal(read(undefined), "useBundled");
    assert.equal(read("fromEnvironment"), "fromEnvironment");
    assert.equal(read("useBundled"), "useBundled");
    assert.equal(read("fromNowhere"), "useBundled");
    assert.equal(DEFAULT_SETTINGS.importStrategy, "useBundled");
  });

  it("useBundled runs the extension's launcher with the chosen interpreter; fromEnvironment runs its miogen", () => {
    assert.deepEqual(serverLaunch("useBundled", "/p/bin/python", "/ext"), {
      command: "/p/bin/python",
      args: [path.join("/ext", "bundled", "tool", "serve.py")],
    });
    assert.deepEqual(serverLaunch("fromEnvironment", "/p/bin/python", "/ext"), {
      command: "/p/bin/python",
      args: ["-m", "miogen", "serve"],
    });
  });

  it("the launcher the extension starts is in the repository (and the VSIX takes it)", () => {
    assert.ok(existsSync(path.join(extensionRoot, ...BUNDLE_LAUNCHER)));
    const ignore = readFileSync(path.join(extensionRoot, ".vscodeignore"), "utf8").split("\n");
    assert.ok(ignore.includes("!bundled/tool/serve.py") && ignore.includes("!bundled/libs/**"));
    assert.ok(existsSync(path.join(extensionRoot, ...MODULE_RUNNER)) && ignore.includes("!bundled/tool/run_module.py"));
  });

  it("says when the build carries no bundle, and only for useBundled", () => {
    const nothing = () => false;
    const message = bundleProblem("useBundled", "/ext", nothing);
    assert.ok(message);
    assert.match(message, /carries no bundled server/);
    assert.match(message, /"miogen\.importStrategy" to "fromEnvironment"/);
    assert.equal(bundleProblem("fromEnvironment", "/ext", nothing), undefined);
    const present = new Set([path.join("/ext", "bundled", "libs", "miogen", "__main__.py"), path.join("/ext", ...BUNDLE_LAUNCHER)]);
    assert.equal(bundleProblem("useBundled", "/ext", (file) => present.has(file)), undefined);
  });
});

describe("withBundleFallback (the Testing view's pytest and coverage.py)", () => {
  it("runs -m modules through the bundle's module runner with useBundled only", () => {
    const runner = path.join("/ext", ...MODULE_RUNNER);
    assert.deepEqual(withBundleFallback(["-m", "pytest", "-q", "t.py"], "useBundled", "/ext"), [runner, "pytest", "-q", "t.py"]);
    assert.deepEqual(withBundleFallback(["-m", "coverage", "run", "-m", "pytest"], "useBundled", "/ext"), [runner, "coverage", "run", "-m", "pytest"]);
    assert.deepEqual(withBundleFallback(["-m", "pytest"], "fromEnvironment", "/ext"), ["-m", "pytest"]);
    assert.deepEqual(withBundleFallback(["script.py"], "useBundled", "/ext"), ["script.py"]);
  });

  it("the runner behaves as -m: the working folder first, the bundle last, the module's arguments", async () => {
    const runner = path.join(extensionRoot, ...MODULE_RUNNER);
    const show = "import sys, json; print(json.dumps([sys.argv, sys.path[0], sys.path[-1]]))";
    // A module of the working folder (as -m finds it) that prints what it sees.
    const folder = realpathSync(mkdtempSync(path.join(tmpdir(), "miogen-runner-")));
    writeFileSync(path.join(folder, "shown.py"), show);
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile("python3", [runner, "shown", "-q", "x"], { cwd: folder }, (error, out) => (error ? reject(error) : resolve(out))),
    );
    const [argv, first, last] = JSON.parse(stdout);
    assert.deepEqual(argv, [path.join(folder, "shown.py"), "-q", "x"]);
    assert.equal(first, folder);
    assert.equal(last, path.join(extensionRoot, "bundled", "libs"));
  });
});

describe("numpyProblem (compiled dependencies come from the environment)", () => {
  it("names numpy when a genetic algorithm is chosen and the interpreter lacks it", () => {
    const message = numpyProblem("dynamosa", false, "/plain/bin/python");
    assert.ok(message);
    assert.match(message, /"dynamosa" needs numpy, which \/plain\/bin\/python does not have/);
    assert.match(message, /"miogen\.algorithm" to "mio"/);
    assert.ok(numpyProblem("adynamosa", false, "p"));
  });

  it("is silent for MIO and the others, when numpy is there, or when the probe did not say", () => {
    for (const algorithm of ["mio", "random", "wts", "mio-nofds"]) assert.equal(numpyProblem(algorithm, false, "p"), undefined, algorithm);
    assert.equal(numpyProblem("dynamosa", true, "p"), undefined);
    assert.equal(numpyProblem("dynamosa", undefined, "p"), undefined);
  });
});
