// A shared computer: signing out at /connect also ends the built-in authorization server's own
// session of the browser (its record in the store and its cookie), so the next person to use the
// browser authorizes a client as themselves. On real sockets against the built server on a real
// redis-server and on the embedded file store; one browser, two people at the mock identity provider.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  authorize,
  authorizeUrl,
  builtinEnv,
  jwtParts,
  pkce,
  redeemFields,
  register,
  tokenRequest,
} from "./authorize-flow.js";
import { type Browser, browser } from "./browser.js";
import { type CimdHost, startCimdHost } from "./cimd-host.js";
import { INSTALL_TIMEOUT_MS } from "./debian.js";
import { type Deployment, type StoreKind, startDeployment, storeRecordNames } from "./deployment.js";

const CALLBACK = "http://127.0.0.1:49156/callback";

describe.each<StoreKind>(["redis", "file"])("signing out on a shared computer (%s store)", (store) => {
  let d: Deployment;
  let cimd: CimdHost;
  let clientId: string;

  beforeAll(async () => {
    cimd = await startCimdHost();
    d = await startDeployment({
      name: `authorize-sign-out-${store}`,
      replicas: 1,
      store,
      env: builtinEnv(cimd),
    });
    const registered = await register(d.url, {
      client_name: "Shared computer test",
      redirect_uris: [CALLBACK],
    });
    expect(registered.status).toBe(201);
    clientId = String(registered.body.client_id);
  }, INSTALL_TIMEOUT_MS + 120_000);
  afterAll(async () => {
    await d?.stop();
    await cimd?.stop();
  });

  /** Authorizes the client in `shared` as whoever the identity provider signs in; resolves to the token's subject. */
  async function authorizeAs(shared: Browser) {
    const { verifier, challenge } = pkce();
    const url = authorizeUrl(d, { client_id: clientId, redirect_uri: CALLBACK, code_challenge: challenge });
    const { consent, callback, page } = await authorize(shared, url, CALLBACK);
    const answer = await tokenRequest(
      d.url,
      redeemFields({ clientId, redirectUri: CALLBACK, callback, verifier }),
    );
    const subject =
      answer.status === 200 ? jwtParts(String(answer.body.access_token)).payload.sub : undefined;
    return { consent, page, subject };
  }

  const sessions = async () =>
    (await storeRecordNames(d)).filter((name) => name.startsWith("tk:as:Session:"));

  it("Alice signs out; Bob, on the same browser, gets his own consent page and a code for himself", async () => {
    // The identity provider signs in whoever it is told: the browser does not name anyone.
    const shared = browser();
    d.idp.signInAs("alice");
    const alice = await authorizeAs(shared);
    expect(alice.consent?.text).toContain("Shared computer test");
    expect(alice.subject).toBe(`${d.idp.url}#alice`);
    const before = await sessions();

    const signOut = await shared.open(`${d.url}/connect/sign-out`);
    const signedOut = await shared.submit(signOut);
    expect(signedOut.text).toContain("Signed out");
    expect(await sessions()).toHaveLength(before.length - 1);

    d.idp.signInAs("bob");
    const bob = await authorizeAs(shared);
    expect(bob.page.text).not.toContain("This authorization has expired");
    expect(bob.consent?.text).toContain("Shared computer test");
    expect(bob.consent?.text).toContain("bob");
    expect(bob.subject).toBe(`${d.idp.url}#bob`);
  });
});
