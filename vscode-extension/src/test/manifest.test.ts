/** Checks package.json against the code: settings, commands and the pure modules' independence from VS Code. */
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { Commands, ServerCommands } from "../common/constants";
import { DEFAULT_SETTINGS } from "../common/settings";

const root = path.resolve(__dirname, "..", "..");
const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));

describe("package.json", () => {
  const properties: Record<string, { default: unknown; description?: string; markdownDescription?: string }> =
    manifest.contributes.configuration.properties;

  it("contributes every setting, with its default and a description", () => {
    const required = [
      "interpreter",
      "onSave",
      "generateOnSave",
      "budgetSeconds",
      "testsDirectory",
      "testFilePattern",
      "diagnosticSeverity",
      "showCoveredBranches",
      "maxParallelJobs",
      "gutterStyle",
    ];
    for (const key of required) assert.ok(properties[`miogen.${key}`], `miogen.${key} is contributed`);
    for (const [key, value] of Object.entries(DEFAULT_SETTINGS)) {
      const property = properties[`miogen.${key}`];
      assert.ok(property, `miogen.${key} is contributed`);
      assert.deepEqual(property.default, value, `default of miogen.${key}`);
      assert.ok((property.description ?? property.markdownDescription ?? "").length > 20, `miogen.${key} is described`);
    }
    assert.equal(Object.keys(properties).length, Object.keys(DEFAULT_SETTINGS).length);
  });

  it("contributes the extension's commands, none of them a server command", () => {
    const contributed: string[] = manifest.contributes.commands.map((c: { command: string }) => c.command).sort();
    assert.deepEqual(contributed, Object.values(Commands).sort() as string[]);
    for (const id of Object.values(ServerCommands)) assert.ok(!contributed.includes(id), `${id} is left to the server`);
  });

  it("puts 'Generate tests for class or function' in the editor context menu for Python files", () => {
    const [entry] = manifest.contributes.menus["editor/context"];
    assert.equal(entry.command, Commands.generateTestsForClass);
    assert.match(entry.when, /editorLangId == python/);
  });

  it("names the class command for classes and functions", () => {
    const titles = Object.fromEntries(manifest.contributes.commands.map((c: { command: string; title: string }) => [c.command, c.title]));
    assert.equal(titles[Commands.generateTestsForClass], "Generate tests for class or function");
    assert.equal(titles[Commands.generateTestsForFile], "Generate tests for file");
    assert.equal(titles[Commands.generateTestsForFolder], "Generate tests for folder");
  });

  it("puts 'Generate tests for file' and 'for folder' in the explorer's context menu and the editor title", () => {
    type Entry = { command: string; when: string; group: string };
    const menus: Record<string, Entry[]> = manifest.contributes.menus;
    const entry = (menu: string, command: string) => menus[menu]?.find((e) => e.command === command);
    const file = entry("explorer/context", Commands.generateTestsForFile);
    const folder = entry("explorer/context", Commands.generateTestsForFolder);
    assert.ok(file && folder);
    assert.match(file.when, /resourceLangId == python/);
    assert.match(file.when, /!explorerResourceIsFolder/);
    assert.match(folder.when, /(^|&& )explorerResourceIsFolder/);
    for (const command of [Commands.generateTestsForFile, Commands.generateTestsForFolder]) {
      assert.match(entry("editor/title", command)?.when ?? "", /resourceLangId == python/, command);
    }
  });

  it("declares previewTests, on by default, per resource", () => {
    const preview = properties["miogen.previewTests"] as { default: unknown; type: string; scope: string };
    assert.deepEqual([preview.type, preview.default, preview.scope], ["boolean", true, "resource"]);
  });

  it("keeps @types/vscode within engines.vscode (vsce refuses otherwise)", () => {
    const engine = manifest.engines.vscode.replace(/^\^/, "");
    assert.equal(manifest.devDependencies["@types/vscode"], engine);
  });
});

describe("the walkthrough (contributes.walkthroughs)", () => {
  /** Commands of VS Code and of the Python extension the walkthrough links to. */
  const OTHERS = new Set([
    "python.setInterpreter",
    "workbench.action.openSettings",
    "workbench.action.files.openFile",
    "workbench.view.testing.focus",
  ]);
  const contributed = new Set<string>(manifest.contributes.commands.map((c: { command: string }) => c.command));
  const [walkthrough] = manifest.contributes.walkthroughs;
  type Step = { id: string; title: string; description: string; media: Record<string, string>; completionEvents: string[] };
  const steps: Step[] = walkthrough.steps;

  it("takes a new user from the interpreter through a Python file and generation to the coverage marks", () => {
    assert.deepEqual(
      steps.map((step) => step.id),
      ["selectInterpreter", "openPythonFile", "generateTests", "seeCoverage"],
    );
    assert.equal(new Set(steps.map((s) => s.id)).size, steps.length);
    for (const step of steps) assert.ok(step.title && step.description.length > 20, step.id);
  });

  it("shows media files that exist and are packaged", () => {
    const packaged = readFileSync(path.join(root, ".vscodeignore"), "utf8");
    for (const step of steps) {
      const files = Object.values(step.media).filter((value) => /\.(md|png|svg|gif)$/.test(value));
      assert.ok(files.length > 0, `${step.id} has media`);
      for (const file of files) {
        assert.ok(existsSync(path.join(root, file)), `${step.id}: ${file} exists`);
        assert.ok(packaged.includes(`!${file.split("/")[0]}/**`), `${file} goes into the VSIX`);
      }
    }
  });

  it("links only to commands that exist: the extension's own or VS Code's and the Python extension's", () => {
    const linked = (text: string) => [...text.matchAll(/\(command:([\w.]+)/g)].map((m) => m[1]);
    const events = steps.flatMap((step) => step.completionEvents.filter((e) => e.startsWith("onCommand:")).map((e) => e.slice(10)));
    const media = steps.flatMap((step) => Object.values(step.media).filter((f) => f.endsWith(".md")).map((f) => readFileSync(path.join(root, f), "utf8")));
    const commands = [...steps.flatMap((step) => linked(step.description)), ...media.flatMap(linked), ...events];
    assert.ok(commands.includes(Commands.generateTestsForClass) && commands.includes(Commands.toggleCoverage));
    for (const command of commands) assert.ok(contributed.has(command) || OTHERS.has(command), command);
  });

  it("names settings that exist", () => {
    const properties = manifest.contributes.configuration.properties;
    const texts = steps.flatMap((step) => [step.description, ...step.completionEvents, ...Object.values(step.media).map((f) => readFileSync(path.join(root, f), "utf8"))]);
    const named = texts.flatMap((text) => [...text.matchAll(/miogen\.([a-zA-Z]+)(?![\w(])/g)].map((m) => `miogen.${m[1]}`));
    assert.ok(named.length >= 4);
    for (const key of named) assert.ok(properties[key] || contributed.has(key), key);
  });
});

describe("pure modules", () => {
  it("do not import vscode, so they run under plain node", () => {
    const common = path.join(root, "src", "common");
    const pure = readdirSync(common).filter((f) => f.endsWith(".ts") && !["server.ts", "vscodeapi.ts", "pythonEnvironment.ts"].includes(f));
    assert.ok(pure.length >= 8);
    for (const file of pure) {
      const source = readFileSync(path.join(common, file), "utf8");
      assert.doesNotMatch(source, /from "vscode"|require\("vscode"\)/, file);
    }
  });
});

describe("Marketplace metadata (vsce package runs without --allow-missing-repository)", () => {
  it("names the repository, homepage, issues and license", () => {
    assert.match(manifest.repository.url, /^https:\/\/.+\.git$/);
    assert.match(manifest.homepage, /^https:\/\//);
    assert.match(manifest.bugs.url, /^https:\/\/.+\/issues$/);
    assert.equal(manifest.license, "MIT");
    assert.ok(readFileSync(path.join(root, "LICENSE"), "utf8").startsWith("MIT License"));
    assert.doesNotMatch(manifest.scripts.package, /allow-missing-repository/);
  });

  it("has a 128x128 PNG icon, a changelog entry for this version and a README, all packaged", () => {
    const icon = readFileSync(path.join(root, manifest.icon));
    assert.equal(icon.subarray(1, 4).toString(), "PNG");
    assert.deepEqual([icon.readUInt32BE(16), icon.readUInt32BE(20)], [128, 128]);
    assert.match(readFileSync(path.join(root, "CHANGELOG.md"), "utf8"), new RegExp(`^## ${manifest.version.replace(/\./g, "\\.")}$`, "m"));
    const packaged = readFileSync(path.join(root, ".vscodeignore"), "utf8");
    for (const file of [manifest.icon, "CHANGELOG.md", "README.md", "LICENSE", "python/*.py"]) assert.ok(packaged.includes(`!${file}`), file);
  });

  it("keeps the Marketplace README's images absolute (vsce rewrites or refuses relative ones)", () => {
    const readme = readFileSync(path.join(root, "README.md"), "utf8");
    const images = [...readme.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)].map((m) => m[1]);
    assert.ok(images.length >= 2);
    for (const image of images) assert.match(image, /^https:\/\/.+\.png$/);
  });
});
