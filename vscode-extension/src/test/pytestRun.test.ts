import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { describe, it } from "node:test";
import {
  coverageJsonArgs,
  debugConfiguration,
  listsGeneratedTests,
  parseReport,
  pytestArgs,
  REPORT_ENV,
  runArgs,
  userPytestArgs,
} from "../common/pytestRun";

const fixtures = path.resolve(__dirname, "..", "..", "src", "test", "fixtures");
const repo = path.resolve(__dirname, "..", "..", "..");
const files = { dataFile: "/s/.coverage", jsonFile: "/s/c.json", folder: "/ws/", testFiles: ["/ws/tests/test_a.py"] };

describe("command lines", () => {
  const selections = [
    { file: "tests/test_a.py", key: "" },
    { file: "tests/test_b.py", key: "TestB::test_y" },
  ];

  it("run pytest with the reporter plugin and the selected node ids", () => {
    assert.deepEqual(runArgs("run", selections), [
      "-m", "pytest", "-p", "miogen_testing_report", "--color=yes", "--continue-on-collection-errors",
      "tests/test_a.py", "tests/test_b.py::TestB::test_y",
    ]); // prettier-ignore
  });

  it("measure branches of the folder's code only, leaving out the test files and virtual environments", () => {
    const args = runArgs("coverage", selections, files);
    assert.deepEqual(args.slice(0, 5), ["-m", "coverage", "run", "--branch", "--data-file=/s/.coverage"]);
    assert.ok(args.includes("--include=/ws/*"));
    assert.ok(args.includes("--omit=/ws/tests/test_a.py,*/site-packages/*,/ws/.venv/*,/ws/venv/*"));
    assert.deepEqual(args.slice(args.indexOf("pytest") - 1, args.indexOf("pytest") + 3), ["-m", "pytest", "-p", "miogen_testing_report"]);
    assert.deepEqual(coverageJsonArgs(files).slice(0, 7), ["-m", "coverage", "json", "-q", "--data-file=/s/.coverage", "-o", "/s/c.json"]);
  });

  it("debug pytest as a module under debugpy, without colours", () => {
    const config = debugConfiguration("debugpy", { python: "/v/bin/python", cwd: "/ws", selections, env: { A: "1" }, runId: "r1" });
    assert.equal(config.type, "debugpy");
    assert.equal(config.module, "pytest");
    assert.equal(config.python, "/v/bin/python");
    assert.equal(config.miogenRunId, "r1");
    assert.deepEqual(config.args, pytestArgs(selections).filter((a) => a !== "--color=yes"));
  });
});

describe("python.testing.pytestArgs in the runs the extension starts", () => {
  const selections = [{ file: "tests/test_a.py", key: "test_x" }];
  const setting = ["tests", "-x", "-k", "stack and not slow", "--maxfail=2", "-p", "no:cacheprovider", "--rootdir", ".", "-vv", "src/"];
  const options = ["-x", "-k", "stack and not slow", "--maxfail=2", "-p", "no:cacheprovider", "--rootdir", ".", "-vv"];

  it("keeps the options with their values and leaves out the paths to collect (the run names its tests)", () => {
    assert.deepEqual(userPytestArgs(setting, "run"), options);
  });

  it("puts them after the reporter's arguments and before the selected nodes, in run, coverage and debug", () => {
    const user = userPytestArgs(setting, "run");
    assert.deepEqual(runArgs("run", selections, undefined, user), [
      "-m", "pytest", "-p", "miogen_testing_report", "--color=yes", "--continue-on-collection-errors",
      ...options, "tests/test_a.py::test_x",
    ]); // prettier-ignore
    const coverage = runArgs("coverage", selections, files, userPytestArgs(setting, "coverage"));
    assert.deepEqual(coverage.slice(coverage.indexOf("--continue-on-collection-errors") + 1), [...options, "tests/test_a.py::test_x"]);
    const config = debugConfiguration("debugpy", { python: "p", cwd: "/ws", selections, env: {}, runId: "r", userArgs: user });
    assert.deepEqual((config.args as string[]).slice(-options.length - 1), [...options, "tests/test_a.py::test_x"]);
  });

  it("leaves pytest-cov's options out of coverage runs only", () => {
    const withCov = ["--cov", "src", "--cov-report=term", "--cov-branch", "--no-cov-on-fail", "--cov", "-x"];
    assert.deepEqual(userPytestArgs(withCov, "coverage"), ["-x"]);
    assert.deepEqual(userPytestArgs(withCov, "run"), withCov);
  });

  it("ignores a setting that is not a list of strings", () => {
    assert.deepEqual(userPytestArgs(undefined, "run"), []);
    assert.deepEqual(userPytestArgs("-x", "run"), []);
    assert.deepEqual(userPytestArgs(["-x", 3, null, ""], "run"), ["-x"]);
  });
});

describe("parseReport (the plugin's JSON lines, captured from a real pytest run)", () => {
  const report = parseReport(readFileSync(path.join(fixtures, "pytest-report.jsonl"), "utf8"));
  const byKey = new Map(report.results.map((r) => [r.key, r]));

  it("gives each test its outcome and the failing line in the test file", () => {
    assert.equal(byKey.get("test_ok")?.outcome, "passed");
    const bad = byKey.get("test_bad")!;
    assert.equal(bad.outcome, "failed");
    assert.deepEqual({ path: bad.location?.path, line: bad.location?.line }, { path: "/ws/tests/test_x.py", line: 9 });
    assert.match(bad.messages[0], /IndexError/);
    assert.equal(byKey.get("test_err")?.outcome, "error", "a failing fixture is an error");
    assert.equal(byKey.get("test_skip")?.outcome, "skipped");
  });

  it("folds parametrized cases: one failing case fails the function, its id named", () => {
    const param = byKey.get("TestGroup::test_p")!;
    assert.equal(param.outcome, "failed");
    assert.equal(param.messages.length, 1);
    assert.match(param.messages[0], /^\[2\]\n/);
  });

  it("reports files that did not collect", () => {
    assert.deepEqual(report.collectionErrors.map((e) => e.file), ["/ws/tests/test_broken.py"]);
  });

  it("skips lines that are not JSON", () => {
    assert.deepEqual(parseReport("garbage\n{\"kind\": \"test\"}\n\n"), { results: [], collectionErrors: [] });
  });
});

describe("listsGeneratedTests (no duplicates with the Python extension)", () => {
  it("auto: lists unless the Python extension's pytest discovery is on", () => {
    assert.equal(listsGeneratedTests("auto", { installed: false, pytestEnabled: true }), true);
    assert.equal(listsGeneratedTests("auto", { installed: true, pytestEnabled: false }), true);
    assert.equal(listsGeneratedTests("auto", { installed: true, pytestEnabled: true }), false);
  });

  it("on and off are what they say", () => {
    assert.equal(listsGeneratedTests("on", { installed: true, pytestEnabled: true }), true);
    assert.equal(listsGeneratedTests("off", { installed: false, pytestEnabled: false }), false);
  });
});

describe("the pytest plugin (python/miogen_testing_report.py) in a real pytest", () => {
  const python = path.join(repo, ".venv", "bin", "python");
  it("writes what parseReport reads", { skip: existsSync(python) ? false : `no ${python} (run scripts/setup.sh)` }, () => {
    const work = mkdtempSync(path.join(tmpdir(), "miogen-plugin-"));
    mkdirSync(path.join(work, "tests"));
    writeFileSync(path.join(work, "tests", "test_t.py"), "import pytest\n\n\ndef test_a():\n    assert 1 == 2\n\n\n@pytest.mark.parametrize('n', [1, 2])\ndef test_b(n):\n    assert n\n");
    const reportFile = path.join(work, "report.jsonl");
    const pluginDir = path.resolve(__dirname, "..", "..", "python");
    const run = spawnSync(python, ["-m", ...runArgs("run", [{ file: "tests/test_t.py", key: "" }]).slice(1), "-p", "no:cacheprovider"], {
      cwd: work,
      env: { ...process.env, PYTHONPATH: pluginDir, [REPORT_ENV]: reportFile },
      encoding: "utf8",
    });
    assert.equal(run.status, 1, run.stderr);
    const { results } = parseReport(readFileSync(reportFile, "utf8"));
    const byKey = new Map(results.map((r) => [r.key, r]));
    assert.equal(byKey.get("test_a")?.outcome, "failed");
    assert.equal(byKey.get("test_a")?.location?.line, 5);
    assert.equal(byKey.get("test_a")?.file, path.join(work, "tests", "test_t.py"));
    assert.equal(byKey.get("test_b")?.outcome, "passed");
  });
});
