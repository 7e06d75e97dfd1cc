import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { isOffrunError } from "../../../../src/core/foundation/errors.js";
import { git } from "../../../../src/core/git/repo.js";
import { forgetVocabularies, loadProjectVocabulary } from "../../../../src/core/vocabulary/load.js";
import { readUserVocabulary, userVocabularyFile } from "../../../../src/core/vocabulary/user-list.js";
import { rewriteDictation } from "../../../../src/core/vocabulary/rewrite.js";
import type { Vocabulary } from "../../../../src/core/vocabulary/vocabulary.js";

const savedEnv = { ...process.env };
let sandbox: string;

beforeAll(async () => {
  sandbox = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "offrun-vocabulary-")));
  await fs.writeFile(path.join(sandbox, "gitconfig"), "[user]\n\tname = Test\n\temail = test@example.com\n");
  Object.assign(process.env, { GIT_CONFIG_GLOBAL: path.join(sandbox, "gitconfig"), GIT_CONFIG_NOSYSTEM: "1" });
});

afterAll(async () => {
  process.env = savedEnv;
  await fs.rm(sandbox, { recursive: true, force: true });
});

beforeEach(() => forgetVocabularies());

async function write(root: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(root, name)), { recursive: true });
    await fs.writeFile(path.join(root, name), content);
  }
}

/** A repository with a commit, an untracked file, ignored dependencies and an agent worktree folder. */
async function makeRepo(name: string): Promise<string> {
  const root = path.join(sandbox, name);
  await fs.mkdir(root);
  await git(root, ["init", "-q", "-b", "main"]);
  await write(root, {
    ".gitignore": "node_modules/\n",
    "src/upload.ts": "export function retryBackoffHelper() {}\nretryBackoffHelper();\n",
    "src/upload.test.js": "test('upload', () => retryBackoffHelper());\n",
    "src/logo.png": Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0, ...Buffer.from("const pngChunkName = 1")]),
    "package-lock.json": '{"integrity": "sha512-abcDefGhi"}',
  });
  await git(root, ["add", "-A"]);
  await git(root, ["commit", "-q", "-m", "first"]);
  await write(root, {
    "src/draft-notes.ts": "const uncommittedDraftName = 1;\n",
    "node_modules/left-pad/index.js": "function dependencyInternalName() {}\n",
    ".worktrees/agent/src/copy.ts": "const worktreeCopyName = 1;\n",
  });
  return root;
}

const rewrite = (vocabulary: Vocabulary, text: string) => rewriteDictation(text, vocabulary).text;

describe("the vocabulary of a real git repository", () => {
  test("it reads committed and untracked files and skips ignored ones, binaries, lockfiles and worktrees", async () => {
    const root = await makeRepo("scan");
    const { vocabulary, stats } = await loadProjectVocabulary(root);
    expect(stats).toMatchObject({ from: "scan", listedBy: "git", files: 6 });
    expect(rewrite(vocabulary, "fix retry backoff helper in upload dot test dot js")).toBe(
      "fix `retryBackoffHelper` in `upload.test.js`",
    );
    expect(rewrite(vocabulary, "uncommitted draft name")).toBe("`uncommittedDraftName`");
    for (const absent of ["dependency internal name", "worktree copy name", "png chunk name", "abc def ghi"]) {
      expect(rewrite(vocabulary, absent)).toBe(absent);
    }
  });

  test("a second load comes from memory, a new process from the disk cache, a change scans again", async () => {
    const root = await makeRepo("cache");
    expect((await loadProjectVocabulary(root)).stats.from).toBe("scan");
    expect((await loadProjectVocabulary(root)).stats.from).toBe("memory");
    forgetVocabularies();
    const fromDisk = await loadProjectVocabulary(root);
    expect(fromDisk.stats.from).toBe("disk");
    expect(rewrite(fromDisk.vocabulary, "retry backoff helper")).toBe("`retryBackoffHelper`");

    // An edit to a file that is already modified must show too, not only a new entry in git status.
    await fs.appendFile(path.join(root, "src/draft-notes.ts"), "const secondDraftName = 2;\n");
    const edited = await loadProjectVocabulary(root);
    expect(edited.stats.from).toBe("scan");
    expect(rewrite(edited.vocabulary, "second draft name")).toBe("`secondDraftName`");

    await git(root, ["add", "-A"]);
    await git(root, ["commit", "-q", "-m", "second"]);
    await fs.rm(path.join(root, "src/upload.ts"));
    await fs.rm(path.join(root, "src/upload.test.js"));
    await git(root, ["commit", "-q", "-am", "remove upload"]);
    const committed = await loadProjectVocabulary(root);
    expect(committed.stats.from).toBe("scan");
    expect(rewrite(committed.vocabulary, "retry backoff helper")).toBe("retry backoff helper");
  });

  test("the user's list is read on every load and wins over the code", async () => {
    const root = await makeRepo("user-list");
    await loadProjectVocabulary(root);
    await write(root, {
      ".offrun/vocabulary.json": JSON.stringify({ "retry backoff helper": "retryLater", "cube control": "kubectl" }),
    });
    const { vocabulary, stats } = await loadProjectVocabulary(root);
    expect(stats).toMatchObject({ from: "memory", userPhrases: 2 });
    expect(rewrite(vocabulary, "run cube control after retry backoff helper")).toBe("run kubectl after retryLater");
  });

  test("a folder that is not a git repository is walked, skipping dependency and build folders", async () => {
    const root = path.join(sandbox, "plain");
    await write(root, {
      "lib/queue-runner.py": "def drain_job_queue(): pass\n",
      "node_modules/x/index.js": "const dependencyInternalName = 1;\n",
      "build/out.js": "const bundledOutputName = 1;\n",
    });
    const { vocabulary, stats } = await loadProjectVocabulary(root);
    expect(stats).toMatchObject({ from: "scan", listedBy: "walk", files: 1 });
    expect(rewrite(vocabulary, "drain job queue in queue runner dot py")).toBe(
      "`drain_job_queue` in `queue-runner.py`",
    );
    expect(rewrite(vocabulary, "bundled output name")).toBe("bundled output name");
    expect((await loadProjectVocabulary(root)).stats.from).toBe("memory");
  });
});

describe("a bad .offrun/vocabulary.json", () => {
  async function errorFor(content: string): Promise<unknown> {
    const root = await fs.mkdtemp(path.join(sandbox, "bad-"));
    await write(root, { ".offrun/vocabulary.json": content });
    return readUserVocabulary(root).then(
      () => undefined,
      (error: unknown) => error,
    );
  }

  test("a file that is not JSON is refused with the file's path and how to fix it", async () => {
    const error = await errorFor("{ 'retry helper': retryBackoffHelper }");
    expect(isOffrunError(error, "invalid_file")).toBe(true);
    expect((error as Error).message).toMatch(/\.offrun\/vocabulary\.json is not valid JSON/);
    expect((error as Error).message).toContain('{"retry helper": "retryBackoffHelper"');
  });

  test("a list instead of an object, an empty spelling, a number and a phrase without words are each named", async () => {
    expect((await errorFor('["retryBackoffHelper"]')) as Error).toMatchObject({ kind: "invalid_file" });
    const error = (await errorFor(JSON.stringify({ "retry helper": "", "max count": 3, "?!": "x" }))) as Error;
    expect(error.message).toContain("vocabulary.json is not valid:");
    expect(error.message).toContain("retry helper: a spelling cannot be empty");
    expect(error.message).toMatch(/max count: .*string/i);
    expect(error.message).toContain("?!: a phrase needs at least one letter or digit");
  });

  test("two phrases that are the same when spoken are refused, naming both", async () => {
    const error = (await errorFor(JSON.stringify({ "Retry helper": "a", "retry, helper!": "b" }))) as Error;
    expect(isOffrunError(error, "invalid_file")).toBe(true);
    expect(error.message).toContain('"Retry helper" and "retry, helper!" are the same spoken phrase');
  });

  test("loading the project reports the same error instead of ignoring the list", async () => {
    const root = await makeRepo("bad-list");
    await write(root, { ".offrun/vocabulary.json": '{"retry helper": "multi\\nline"}' });
    await expect(loadProjectVocabulary(root)).rejects.toThrow(
      `${userVocabularyFile(root)} is not valid:\n  retry helper: a spelling is one line`,
    );
  });
});
