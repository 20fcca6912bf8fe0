import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { defineConfig } from "vitest/config";

// The leak scan: any secret value in a tool result, log line or process output fails the test.
// Resolved from the root's devDependencies: core's suite runs it too, and core cannot depend on the
// test kit, which depends on core.
const leakScan = createRequire(import.meta.url).resolve("@toolkits/testkit/leak-scan.setup");
// A package's own additions to it (credentials it watches in every file), run from the package's folder.
const ownLeakSetup = resolve("test/leaks.setup.ts");

/** The test set-up every package shares (each package's vitest.config.ts re-exports it). */
export default defineConfig({
  // Workspace packages resolve to their TypeScript sources ("@toolkits/source" export condition).
  resolve: { conditions: ["@toolkits/source"] },
  ssr: { resolve: { conditions: ["@toolkits/source"] } },
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: [leakScan, ...(existsSync(ownLeakSetup) ? [ownLeakSetup] : [])],
    // Generous limits: CI runs every package's suite at once on two cores, and several tests spawn the server.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
