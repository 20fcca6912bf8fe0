import { createRequire } from "node:module";
import { useToolkitSandbox } from "@toolkits/core/testing";
import { expect, it } from "vitest";
import { sheetsToolkit } from "../src/index.js";
import { SHEETS } from "./kit.js";

const box = useToolkitSandbox(sheetsToolkit, SHEETS);
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

  await box.call("Sheets.GenerateFilePickerUrl");
  await box.call("Sheets.WhoAmI");
  expect(googleLibraries()).toEqual([]);

  await box.call("Sheets.GetSpreadsheetMetadata", { spreadsheet_id: "quarterly-report-0" });
  expect(googleLibraries()).toEqual(["sheets"]);
  await box.call("Sheets.SearchSpreadsheets");
  expect(googleLibraries()).toEqual(["drive", "sheets"]);
});
