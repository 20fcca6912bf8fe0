import { requestContract, useToolkitSandbox } from "@toolkits/core/testing";
import { HttpResponse, http } from "msw";
import { expect, it } from "vitest";
import { sheetsToolkit } from "../src/index.js";
import { GOOGLE_API, SHEETS } from "./kit.js";

// A fake Google at one root of its own, as GOOGLE_API_ROOT_URL configures: it forwards each
// request to the sandbox at Google's real hosts and records where it arrived. The contract takes
// the fake root as one of Google's hosts.
const ROOT = "http://google-fake.test:8080";
const box = useToolkitSandbox(sheetsToolkit, {
  ...SHEETS,
  contract: requestContract(GOOGLE_API, { hosts: [ROOT] }),
});

function forwardToGoogle(arrived: string[]) {
  return http.all(`${ROOT}/*`, async ({ request }) => {
    const url = new URL(request.url);
    arrived.push(`${request.method} ${url.pathname}`);
    const host = url.pathname.startsWith("/v4/")
      ? "https://sheets.googleapis.com"
      : "https://www.googleapis.com";
    const body = request.method === "GET" ? undefined : await request.text();
    const response = await fetch(`${host}${url.pathname}${url.search}`, {
      method: request.method,
      headers: request.headers,
      body,
    });
    return new HttpResponse(await response.text(), { status: response.status, headers: response.headers });
  });
}

it("sends every Google API call to GOOGLE_API_ROOT_URL when it is set", async () => {
  const arrived: string[] = [];
  box.server.use(forwardToGoogle(arrived));
  const env = { ...box.env, GOOGLE_API_ROOT_URL: `${ROOT}/` };
  const metadata = await box.call(
    "Sheets.GetSpreadsheetMetadata",
    { spreadsheet_id: "quarterly-report-0" },
    env,
  );
  expect(metadata.data?.title).toBe("Quarterly report");
  expect((await box.call("Sheets.SearchSpreadsheets", { limit: 1 }, env)).data?.spreadsheets).toHaveLength(1);
  expect((await box.call("Sheets.WhoAmI", {}, env)).data?.user).toMatchObject({ name: "Ada Lovelace" });
  expect(arrived.sort()).toEqual([
    "GET /drive/v3/about",
    "GET /drive/v3/files",
    "GET /oauth2/v2/userinfo",
    "GET /v4/spreadsheets/quarterly-report-0",
  ]);
});
