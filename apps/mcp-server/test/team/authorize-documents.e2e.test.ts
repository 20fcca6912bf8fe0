// Clients the built-in authorization server cannot use, refused at once and said why: a dynamic
// registration without a redirect URI or the code flow, and client metadata documents that cannot
// be fetched or are wrong, each fetched once per authorization request and not again for a
// minute, the page naming the case and the log one line per refused request; and a person's
// denial on the consent page, logged once too. Against the built server (one replica, file store)
// and a loopback https host serving the documents, which counts the fetches.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../spawn.js";
import {
  authorize,
  authorizeUrl,
  builtinEnv,
  consentForm,
  pkce,
  refusalLines,
  register,
} from "./authorize-flow.js";
import { browser } from "./browser.js";
import { type CimdHost, type Served, startCimdHost } from "./cimd-host.js";
import { INSTALL_TIMEOUT_MS } from "./debian.js";
import { type Deployment, startDeployment } from "./deployment.js";

const CALLBACK = "http://127.0.0.1:49154/callback";
const GOOD = { client_name: "Document test", redirect_uris: [CALLBACK], token_endpoint_auth_method: "none" };

describe("what the built-in authorization server refuses, and how it says so", () => {
  let d: Deployment;
  let cimd: CimdHost;

  beforeAll(async () => {
    cimd = await startCimdHost();
    d = await startDeployment({
      name: "authorize-documents",
      replicas: 1,
      store: "file",
      env: builtinEnv(cimd),
    });
  }, INSTALL_TIMEOUT_MS + 120_000);
  afterAll(async () => {
    await d?.stop();
    await cimd?.stop();
  });

  const log = () => d.replicas[0]?.stderr().length ?? 0;
  const lines = (from: number) => {
    const replica = d.replicas[0];
    if (!replica) throw new Error("no replica");
    return refusalLines(replica, from);
  };

  /** Opens an authorization for `clientId` in a new browser; resolves to the page it got. */
  async function open(clientId: string) {
    const url = authorizeUrl(d, {
      client_id: clientId,
      redirect_uri: CALLBACK,
      code_challenge: pkce().challenge,
    });
    return authorize(browser({ user: "alice" }), url, CALLBACK);
  }

  it.each([
    ["no redirect URI", { client_name: "No redirect", redirect_uris: [] }, /at least one redirect URI/],
    ["no redirect_uris at all", { client_name: "No redirect" }, /at least one redirect URI/],
    [
      "no code flow (response_types without code)",
      { client_name: "No code flow", redirect_uris: [CALLBACK], response_types: [] },
      /authorization code flow/,
    ],
    [
      "neither (refresh tokens only)",
      { client_name: "Refresh only", response_types: [], grant_types: ["refresh_token"] },
      /at least one redirect URI/,
    ],
  ])(
    "a registration with %s: 400 invalid_client_metadata, saying what is missing",
    async (_case, metadata, says) => {
      const refused = await register(d.url, metadata);
      expect(refused.status, JSON.stringify(refused.body)).toBe(400);
      expect(refused.body.error).toBe("invalid_client_metadata");
      expect(String(refused.body.error_description)).toMatch(says);
    },
  );

  it.each<[string, (url: string) => Served, RegExp, string]>([
    [
      "whose host hangs up",
      () => ({ hangUp: true }),
      /could not be fetched: its host is unreachable/,
      "invalid_client",
    ],
    [
      "over 5 KB",
      (url) => ({ body: { ...GOOD, client_id: url, padding: "x".repeat(6_000) } }),
      /larger than 5 KB \(too large\)/,
      "invalid_client",
    ],
    [
      "slower than 2.5 s",
      (url) => ({ body: { ...GOOD, client_id: url }, delayMs: 3_500 }),
      /within 2\.5 s \(too slow\)/,
      "invalid_client",
    ],
    [
      "answered with a redirect",
      () => ({ status: 302, headers: { location: "https://elsewhere.example/c.json" } }),
      /unexpected HTTP status 302/,
      "invalid_client",
    ],
    [
      "answered 404",
      () => ({ status: 404, body: { error: "not found" } }),
      /unexpected HTTP status 404/,
      "invalid_client",
    ],
    [
      "that is not JSON",
      () => ({ body: "<html>hello</html>" }),
      /is invalid: it is not JSON/,
      "invalid_client_metadata",
    ],
    [
      "whose client_id is not its URL",
      () => ({ body: { ...GOOD, client_id: "https://elsewhere.example/c.json" } }),
      /is invalid: .*client_id does not match/,
      "invalid_client_metadata",
    ],
    [
      "carrying a client secret",
      (url) => ({ body: { ...GOOD, client_id: url, client_secret: "shared-secret" } }),
      /is invalid: .*client_secret/,
      "invalid_client_metadata",
    ],
    [
      "without a redirect URI",
      (url) => ({ body: { ...GOOD, client_id: url, redirect_uris: [] } }),
      /is invalid: A client needs at least one redirect URI/,
      "invalid_client_metadata",
    ],
  ])(
    "a metadata document %s is fetched once per request and not again within a minute; the page and one log line per request say why",
    async (name, make, says, error) => {
      const path = `/refused-${name.split(" ").join("-")}.json`;
      const url = cimd.url(path);
      cimd.serve(path, make(url));
      for (const attempt of [1, 2]) {
        const from = log();
        const { page, callback } = await open(url);
        expect(callback).toBeUndefined();
        expect(page.status).toBe(400);
        expect(page.text).toContain(`${error}:`);
        expect(page.text).toMatch(says);
        expect(cimd.hits(path), `fetches after attempt ${attempt}`).toBe(1);
        const logged = await lines(from);
        expect(logged, JSON.stringify(logged)).toHaveLength(1);
        expect(logged[0]).toMatchObject({ step: "metadata-document", client_id: url, error });
        expect(logged[0]?.reason).toMatch(says);
      }
    },
  );

  it.each<[string, () => Promise<string>, RegExp]>([
    ["not https", async () => `http://${cimd.host}/plain.json`, /is an http URL, not https/],
    [
      "on a private address not allowed",
      async () => cimd.url("/private.json").replace("127.0.0.1", "localhost"),
      /private \(special-use\) address/,
    ],
    [
      "on a host nothing listens at",
      async () => `https://127.0.0.1:${await freePort()}/c.json`,
      /its host is unreachable \(ECONNREFUSED\)/,
    ],
  ])("a client_id %s is refused, the page and one log line saying so", async (_case, target, says) => {
    const url = await target();
    const from = log();
    const { page, callback } = await open(url);
    expect(callback).toBeUndefined();
    expect(page.status).toBe(400);
    expect(page.text).toContain("invalid_client:");
    expect(page.text).toMatch(says);
    const logged = await lines(from);
    expect(logged, JSON.stringify(logged)).toHaveLength(1);
    expect(logged[0]).toMatchObject({ step: "metadata-document", client_id: url, error: "invalid_client" });
    expect(logged[0]?.reason).toMatch(says);
    expect(cimd.hits("/plain.json") + cimd.hits("/private.json")).toBe(0);
  });

  it("a person denying consent: one log line naming the client and that they did not allow access", async () => {
    const registered = await register(d.url, { client_name: "Denial test", redirect_uris: [CALLBACK] });
    const clientId = String(registered.body.client_id);
    const from = log();
    const erin = browser({ user: "erin" });
    const url = authorizeUrl(d, {
      client_id: clientId,
      redirect_uri: CALLBACK,
      code_challenge: pkce().challenge,
    });
    const { callback } = await authorize(erin, url, CALLBACK, {
      consent: (page) =>
        erin.post(page.form().action, consentForm(page, undefined, "deny"), {
          stopBefore: (target) => target.href.startsWith(CALLBACK),
        }),
    });
    expect(callback?.searchParams.get("error")).toBe("access_denied");
    const logged = await lines(from);
    expect(logged, JSON.stringify(logged)).toHaveLength(1);
    expect(logged[0]).toMatchObject({ step: "consent", client_id: clientId, error: "access_denied" });
    expect(logged[0]?.reason).toMatch(/did not allow access/);
  });
});
