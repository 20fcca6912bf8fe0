// The cap on dynamically registered clients (10,000), on real Redis and on the file store: the
// operator is warned from 80 %, a registration at the cap is refused (503, one log line), and a client
// identified by a metadata document, which never registers, still connects. The registered clients
// are counted in their index, which the test fills directly (10 registrations an hour per address
// would take 1,000 hours).
import { readFile, writeFile } from "node:fs/promises";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLIENTS_INDEX } from "../../src/team/authorize/adapter.js";
import { REGISTRATION_LIMITS } from "../../src/team/authorize/registration.js";
import { formatEntries, indexEntry, parseEntries } from "../../src/team/store/file-format.js";
import {
  authorize,
  authorizeUrl,
  builtinEnv,
  pkce,
  redeemFields,
  refusalLines,
  register,
  tokenRequest,
} from "./authorize-flow.js";
import { browser } from "./browser.js";
import { type CimdHost, startCimdHost } from "./cimd-host.js";
import { INSTALL_TIMEOUT_MS } from "./debian.js";
import { type Deployment, onlyReplica, type StoreKind, startDeployment } from "./deployment.js";

const CALLBACK = "http://127.0.0.1:49155/callback";
const DAY_MS = 24 * 3_600_000;

describe.each<StoreKind>(["redis", "file"])("the registered-client cap on the %s store", (store) => {
  let d: Deployment;
  let cimd: CimdHost;

  beforeAll(async () => {
    cimd = await startCimdHost();
    d = await startDeployment({ name: `authorize-cap-${store}`, replicas: 1, store, env: builtinEnv(cimd) });
  }, INSTALL_TIMEOUT_MS + 120_000);
  afterAll(async () => {
    await d?.stop();
    await cimd?.stop();
  });

  /** Makes the index count `count` registered clients (fake ones, beside any real ones). */
  async function registeredClients(count: number): Promise<void> {
    const members = new Map(Array.from({ length: count }, (_, i) => [`seeded-${i}`, Date.now() + DAY_MS]));
    if (d.redis) {
      const client = createClient({ url: d.redis.url });
      await client.connect();
      await client.del(CLIENTS_INDEX);
      await client.zAdd(
        CLIENTS_INDEX,
        [...members].map(([value, score]) => ({ value, score })),
      );
      await client.close();
      return;
    }
    // The file store's process owns its file: it is written while the replica is down.
    await d.restart(0, {}, async () => {
      const file = d.storeFile ?? "";
      const entries = parseEntries(await readFile(file, "utf8"));
      if (!(entries instanceof Map)) throw new Error("not a store file");
      const entry = indexEntry(members);
      if (entry) entries.set(CLIENTS_INDEX, entry);
      await writeFile(file, formatEntries(entries, Date.now()));
    });
  }

  const replica = () => onlyReplica(d);
  const registration = () =>
    register(d.url, {
      client_name: "Cap test",
      redirect_uris: [CALLBACK],
      token_endpoint_auth_method: "none",
    });
  const warnings = (from: number) =>
    replica()
      .stderr()
      .slice(from)
      .split("\n")
      .filter((line) => line.includes("nearing the cap"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);

  it("warns the operator from 80 % of the cap, and registers all the same", async () => {
    const warnAt = REGISTRATION_LIMITS.max * 0.8;
    await registeredClients(warnAt - 1);
    const before = replica().stderr().length;
    expect((await registration()).status).toBe(201);
    expect(warnings(before)).toEqual([]);
    expect((await registration()).status).toBe(201);
    expect(warnings(before)).toEqual([
      expect.objectContaining({ level: 40, registered: warnAt, cap: REGISTRATION_LIMITS.max }),
    ]);
  });

  it("refuses a registration at the cap, logging why once, and still lets a client with a metadata document connect", async () => {
    await registeredClients(REGISTRATION_LIMITS.max);
    const before = replica().stderr().length;
    const refused = await registration();
    expect(refused.status).toBe(503);
    expect(refused.body.error).toBe("temporarily_unavailable");
    expect(await refusalLines(replica(), before)).toEqual([
      expect.objectContaining({ step: "registration", error: "temporarily_unavailable" }),
    ]);
    const path = "/cap/client.json";
    const clientId = cimd.url(path);
    cimd.serve(path, {
      body: {
        client_id: clientId,
        client_name: "Document client",
        redirect_uris: [CALLBACK],
        token_endpoint_auth_method: "none",
      },
    });
    const { verifier, challenge } = pkce();
    const url = authorizeUrl(d, { client_id: clientId, redirect_uri: CALLBACK, code_challenge: challenge });
    const { callback } = await authorize(browser({ user: "alice" }), url, CALLBACK);
    const tokens = await tokenRequest(
      d.url,
      redeemFields({ clientId, redirectUri: CALLBACK, callback, verifier }),
    );
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
  });
});
