# Written by scripts/homebrew-formula.mjs (npm run formula) for offrun-0.1.0.tgz; do not edit.
# It installs the npm package `offrun` from the registry: the tarball `npm run pack:cli` makes.
class Offrun < Formula
  desc "Run coding-agent CLIs side by side, each in its own git worktree"
  homepage "https://www.npmjs.com/package/offrun"
  url "https://registry.npmjs.org/offrun/-/offrun-0.1.0.tgz"
  sha256 "64d921e35765f4f9b78ad045dfa8ca1f94f56aa0792d89bb0f2a572641ce3918"
  license "MIT"

  depends_on "node"

  def install
    system "npm", "install", *std_npm_args
    bin.install_symlink libexec.glob("bin/*")
  end

  def caveats
    <<~EOS
      To run the companion at login and keep `offrun` working when Node is upgraded, run:
        offrun setup
    EOS
  end

  test do
    assert_equal version.to_s, shell_output("#{bin}/offrun --version").strip
  end
end
