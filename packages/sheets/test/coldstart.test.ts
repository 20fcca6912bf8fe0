import { createRequire } from "node:module";
import { expect, it } from "vitest";
import { useSandbox } from "./harness.js";

const box = useSandbox();
const require = createRequire(import.meta.url);
const googleLibraries = () =>
  [
    ...new Set(
      Object.keys(require.cache).flatMap((path) => /@googleapis\/(sheets|drive)\//.exec(path)?.[1] ?? []),
    ),
  ].sort();

it("loads the Google client libraries only when a tool first calls Google", async () => {
  const { sheetsToolkit } = await import("../src/index.js");
  expect(sheetsToolkit.tools).toHaveLength(9);
  expect(googleLibraries()).toEqual([]);

  const call = await box.connect();
  await call("Sheets.GenerateFilePickerUrl");
  await call("Sheets.WhoAmI");
  expect(googleLibraries()).toEqual([]);

  await call("Sheets.GetSpreadsheetMetadata", { spreadsheet_id: "quarterly-report-0" });
  expect(googleLibraries()).toEqual(["sheets"]);
  await call("Sheets.SearchSpreadsheets");
  expect(googleLibraries()).toEqual(["drive", "sheets"]);
});
