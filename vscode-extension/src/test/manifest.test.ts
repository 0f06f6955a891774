/** Checks package.json against the code: settings, commands and the pure modules' independence from VS Code. */
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
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

  it("puts 'Generate tests for class' in the editor context menu for Python files", () => {
    const [entry] = manifest.contributes.menus["editor/context"];
    assert.equal(entry.command, Commands.generateTestsForClass);
    assert.match(entry.when, /editorLangId == python/);
  });

  it("keeps @types/vscode within engines.vscode (vsce refuses otherwise)", () => {
    const engine = manifest.engines.vscode.replace(/^\^/, "");
    assert.equal(manifest.devDependencies["@types/vscode"], engine);
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
