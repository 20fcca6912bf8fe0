import { installLeakScan, LEAKCHECK, type Leak, LeakScan } from "@toolkits/core/testing";
import { afterAll, afterEach } from "vitest";

// Registered for every package by vitest.shared.ts: the whole suite is scanned for secret values
// in tool results, error messages, logs and any process output, and a sighting fails the test.
// Each toolkit's sandbox credentials join the scan when a suite serves that sandbox
// (`useToolkitSandbox`, or a package's own test/leaks.setup.ts).

const scan = new LeakScan(Object.values(LEAKCHECK));
installLeakScan(scan);

function failOnLeaks(when: string): void {
  const leaks = scan.take();
  if (!leaks.length) return;
  const lines = leaks.map((leak: Leak) => `  ${leak.secret} in ${leak.where}: …${leak.excerpt}…`);
  throw new Error(`Secret values leaked ${when}:\n${lines.join("\n")}`);
}

afterEach(() => failOnLeaks("during this test"));
afterAll(() => failOnLeaks("outside any test"));
