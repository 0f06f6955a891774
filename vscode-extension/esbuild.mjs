// Bundles src/extension.ts (and vscode-languageclient) into dist/extension.js, the file package.json's
// "main" points at. `--production` minifies and drops the source map (used by `npm run package`).
import * as esbuild from "esbuild";

const production = process.argv.includes("--production");

await esbuild.build({
  entryPoints: ["src/extension.ts"],
  outfile: "dist/extension.js",
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  external: ["vscode"],
  sourcemap: !production,
  minify: production,
  logLevel: "warning",
});
console.log(`esbuild: dist/extension.js (${production ? "production" : "development"})`);
