#!/usr/bin/env node
// `npm run formula`: writes packaging/homebrew/offrun.rb for the tarball `npm run pack:cli` made
// (or the one named as the first argument). The formula installs that same tarball from the npm
// registry, where `npm publish` of it puts it, so its sha256 is the tarball's: publish the tarball
// this ran on, unchanged, and commit the formula with it. test/integration/homebrew-formula.test.ts
// packs afresh and checks the formula against it.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
const name = "offrun";
const tarball = path.resolve(process.argv[2] ?? path.join(root, "pack", `${name}-${manifest.version}.tgz`));
if (!fs.existsSync(tarball)) {
  console.error(`homebrew-formula: ${tarball} is missing. Run \`npm run pack:cli\` first.`);
  process.exit(1);
}
const sha256 = createHash("sha256").update(fs.readFileSync(tarball)).digest("hex");
// The registry's address of a published tarball: <registry>/<name>/-/<name>-<version>.tgz.
const url = `https://registry.npmjs.org/${name}/-/${name}-${manifest.version}.tgz`;

const formula = `# Written by scripts/homebrew-formula.mjs (npm run formula) for ${path.basename(tarball)}; do not edit.
# It installs the npm package \`${name}\` from the registry: the tarball \`npm run pack:cli\` makes.
class Offrun < Formula
  desc "Run coding-agent CLIs side by side, each in its own git worktree"
  homepage "https://www.npmjs.com/package/${name}"
  url "${url}"
  sha256 "${sha256}"
  license "${manifest.license}"

  depends_on "node"

  def install
    system "npm", "install", *std_npm_args
    bin.install_symlink libexec.glob("bin/*")
  end

  def caveats
    <<~EOS
      To run the companion at login and keep \`offrun\` working when Node is upgraded, run:
        offrun setup
    EOS
  end

  test do
    assert_equal version.to_s, shell_output("#{bin}/offrun --version").strip
  end
end
`;
const out = path.join(root, "packaging", "homebrew", `${name}.rb`);
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, formula);
console.log(`${path.relative(root, out)}: ${url} sha256 ${sha256}`);
