import { HttpResponse, http } from "msw";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, expect, it } from "vitest";
import { sandbox } from "../src/sandbox/index.js";
import { connectTools, SIGNED_IN } from "./harness.js";

// A fake Google at one root of its own, as GOOGLE_API_ROOT_URL configures: it forwards each
// request to the sandbox at Google's real hosts and records where it arrived.
const ROOT = "http://google-fake.test:8080";
const arrived: string[] = [];
const server = setupServer(
  http.all(`${ROOT}/*`, async ({ request }) => {
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
  }),
  ...(sandbox().handlers as Parameters<typeof setupServer>),
);
beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterAll(() => server.close());

it("sends every Google API call to GOOGLE_API_ROOT_URL when it is set", async () => {
  const { call, client } = await connectTools({ ...SIGNED_IN, GOOGLE_API_ROOT_URL: `${ROOT}/` });
  try {
    expect(
      (await call("Sheets.GetSpreadsheetMetadata", { spreadsheet_id: "quarterly-report-0" })).data.title,
    ).toBe("Quarterly report");
    expect((await call("Sheets.SearchSpreadsheets", { limit: 1 })).data.spreadsheets).toHaveLength(1);
    expect((await call("Sheets.WhoAmI")).data.user.name).toBe("Ada Lovelace");
  } finally {
    await client.close();
  }
  expect(arrived.sort()).toEqual([
    "GET /drive/v3/about",
    "GET /drive/v3/files",
    "GET /oauth2/v2/userinfo",
    "GET /v4/spreadsheets/quarterly-report-0",
  ]);
});
