import { afterAll, afterEach } from "vitest";
import { installLeakScan, type Leak, LeakScan, WATCHED_SECRETS } from "../../src/testing/index.js";

// Registered for every package by vitest.shared.ts: the whole suite is scanned for secret values
// in tool results, error messages, logs and any process output, and a sighting fails the test.

const scan = new LeakScan(WATCHED_SECRETS);
installLeakScan(scan);

function failOnLeaks(when: string): void {
  const leaks = scan.take();
  if (!leaks.length) return;
  const lines = leaks.map((leak: Leak) => `  ${leak.secret} in ${leak.where}: …${leak.excerpt}…`);
  throw new Error(`Secret values leaked ${when}:\n${lines.join("\n")}`);
}

afterEach(() => failOnLeaks("during this test"));
afterAll(() => failOnLeaks("outside any test"));
