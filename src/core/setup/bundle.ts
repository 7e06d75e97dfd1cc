import fs from "node:fs/promises";
import path from "node:path";
import * as z from "zod";
import { OffrunError } from "../foundation/errors.js";

/**
 * Copies the bundled CLI (bin/offrun.js and build/, what `npm run build:cli` makes) into the folder
 * the launcher runs, with the two packages the bundle leaves outside (scripts/build-cli.mjs says
 * why): node-notifier and the sandbox runtime, each with the packages it needs. The copy replaces
 * the old one whole, so a companion that is running keeps the files it loaded.
 */

/** The CLI's runtime packages that are not in the bundle (scripts/build-cli.mjs's `external`), and what each is for. */
export const CLI_EXTERNAL_PACKAGES = [
  // The companion imports it when it starts.
  { name: "node-notifier", neededFor: "notifications; the companion does not start without it" },
  // Imported only when a turn runs in the sandbox.
  { name: "@anthropic-ai/sandbox-runtime", neededFor: "the sandbox (`--sandbox`)" },
] as const;
export type CliExternalPackage = (typeof CLI_EXTERNAL_PACKAGES)[number]["name"];

const manifestSchema = z.object({
  version: z.string().optional(),
  dependencies: z.record(z.string(), z.string()).optional(),
  optionalDependencies: z.record(z.string(), z.string()).optional(),
});

export interface CopiedCli {
  /** The folder that now holds bin/offrun.js. */
  dir: string;
  version: string;
  /** External packages (or their dependencies) that were not found beside the source. */
  missing: string[];
}

async function exists(file: string): Promise<boolean> {
  return fs.stat(file).then(
    () => true,
    () => false,
  );
}

async function readManifest(file: string): Promise<z.infer<typeof manifestSchema>> {
  return manifestSchema.parse(JSON.parse(await fs.readFile(file, "utf8")));
}

/** The folder of package `name` as Node would find it from `from`: node_modules of each folder up. */
async function resolvePackage(name: string, from: string): Promise<string | undefined> {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "node_modules", name);
    if (await exists(path.join(candidate, "package.json"))) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** Copies each package and what it depends on into `dest/node_modules`, flat (a nested node_modules goes with its package). */
async function copyPackages(names: readonly string[], from: string, dest: string, missing: string[]): Promise<void> {
  const queue = names.map((name) => ({ name, from, optional: false }));
  const done = new Set<string>();
  while (queue.length > 0) {
    const { name, from: at, optional } = queue.shift()!;
    if (done.has(name)) continue;
    done.add(name);
    const dir = await resolvePackage(name, at);
    if (!dir) {
      if (!optional) missing.push(name);
      continue;
    }
    await fs.cp(dir, path.join(dest, "node_modules", name), { recursive: true, dereference: true });
    const manifest = await readManifest(path.join(dir, "package.json"));
    for (const dependency of Object.keys(manifest.dependencies ?? {}))
      queue.push({ name: dependency, from: dir, optional: false });
    for (const dependency of Object.keys(manifest.optionalDependencies ?? {})) {
      queue.push({ name: dependency, from: dir, optional: true });
    }
  }
}

/** The version of the CLI in `source`, once its files are all there; throws not_installed naming the one missing. */
export async function bundledCliVersion(source: string): Promise<string> {
  for (const file of ["bin/offrun.js", "build/boot.cjs", "build/cli.cjs", "build/cli-quick.cjs", "package.json"]) {
    if (!(await exists(path.join(source, file)))) {
      throw new OffrunError(
        "not_installed",
        `The bundled offrun CLI is incomplete: ${path.join(source, file)} is missing. Reinstall the extension, or run \`npm run build:cli\` in a checkout.`,
      );
    }
  }
  return (await readManifest(path.join(source, "package.json"))).version ?? "0.0.0";
}

/** Copies the CLI in `source` (a checkout, the installed package, or the extension's copy) to `dest`. */
export async function copyBundledCli(
  source: string,
  dest: string,
  packages: readonly string[] = CLI_EXTERNAL_PACKAGES.map((p) => p.name),
): Promise<CopiedCli> {
  const version = await bundledCliVersion(source);
  const parent = path.dirname(dest);
  await fs.mkdir(parent, { recursive: true });
  const fresh = `${dest}.new-${process.pid}`;
  const old = `${dest}.old-${process.pid}`;
  await fs.rm(fresh, { recursive: true, force: true });
  try {
    await fs.mkdir(path.join(fresh, "bin"), { recursive: true });
    for (const file of ["offrun.js", "package.json"]) {
      await fs.copyFile(path.join(source, "bin", file), path.join(fresh, "bin", file));
    }
    // The benchmarks and source maps stay behind, as in the published package.
    await fs.cp(path.join(source, "build"), path.join(fresh, "build"), {
      recursive: true,
      filter: (entry) => {
        const relative = path.relative(path.join(source, "build"), entry);
        return !relative.startsWith("bench") && !relative.endsWith(".map");
      },
    });
    // What the CLI reads of its manifest: its version (`offrun --version`).
    await fs.writeFile(
      path.join(fresh, "package.json"),
      `${JSON.stringify({ name: "offrun", version, private: true, type: "module" }, null, 2)}\n`,
    );
    const missing: string[] = [];
    await copyPackages(packages, source, fresh, missing);
    const hadOld = await exists(dest);
    if (hadOld) await fs.rename(dest, old);
    await fs.rename(fresh, dest);
    if (hadOld) await fs.rm(old, { recursive: true, force: true });
    // One the user installed beside the copy (the extension leaves the sandbox runtime out, and
    // Set Up Offrun's fix installs it into ~/.offrun/lib/node_modules) is found there by Node.
    const stillMissing: string[] = [];
    for (const name of missing) if (!(await resolvePackage(name, dest))) stillMissing.push(name);
    return { dir: dest, version, missing: stillMissing };
  } catch (error) {
    await fs.rm(fresh, { recursive: true, force: true }).catch(() => undefined);
    throw error;
  }
}
