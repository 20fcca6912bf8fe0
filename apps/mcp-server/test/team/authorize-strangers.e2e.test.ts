// What browsers that are not signed in cost the built-in authorization server's store: nothing. An
// authorization request from one is checked without writing and sent to sign in first, the
// request carried in the browser's sealed cookie, so the library's interaction record (several
// KB, 10 minutes) is stored only once a person is signed in; requests it would refuse are refused
// at once; parameters are bounded. On real sockets against the built server on a real
// redis-server and on the embedded file store.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  authorize,
  authorizeUrl,
  builtinEnv,
  pkce,
  redeemFields,
  register,
  tokenRequest,
} from "./authorize-flow.js";
import { browser } from "./browser.js";
import { type CimdHost, startCimdHost } from "./cimd-host.js";
import { INSTALL_TIMEOUT_MS } from "./debian.js";
import { type Deployment, type StoreKind, startDeployment, storeRecordNames } from "./deployment.js";

const CALLBACK = "http://127.0.0.1:49155/callback";
const REQUESTS = 1_000;
/** Records 1,000 strangers may add at most: none is expected (a client's use is noted once a day). */
const RECORD_BOUND = 5;

describe.each<StoreKind>(["redis", "file"])(
  "authorization requests from browsers not signed in (%s store)",
  (store) => {
    let d: Deployment;
    let cimd: CimdHost;
    let clientId: string;

    beforeAll(async () => {
      cimd = await startCimdHost();
      d = await startDeployment({
        name: `authorize-strangers-${store}`,
        replicas: 1,
        store,
        env: builtinEnv(cimd),
      });
      const registered = await register(d.url, { client_name: "Strangers test", redirect_uris: [CALLBACK] });
      expect(registered.status).toBe(201);
      clientId = String(registered.body.client_id);
    }, INSTALL_TIMEOUT_MS + 120_000);
    afterAll(async () => {
      await d?.stop();
      await cimd?.stop();
    });

    const request = (params: Record<string, string | undefined> = {}) =>
      authorizeUrl(d, {
        client_id: clientId,
        redirect_uri: CALLBACK,
        code_challenge: pkce().challenge,
        ...params,
      });
    const get = (url: string) => fetch(url, { redirect: "manual" });

    /** The kinds of request a stranger sends, taken in turn, and where each must go. */
    const KINDS: [string, () => string, (answer: Response) => void][] = [
      ["the client's own", () => request(), (answer) => expectSignIn(answer)],
      [
        "naming no redirect URI (the client has one)",
        () => request({ redirect_uri: undefined }),
        expectSignIn,
      ],
      [
        "an unknown client",
        () => request({ client_id: randomBytes(16).toString("hex") }),
        (a) => expect(a.status).toBe(400),
      ],
      [
        "another redirect URI",
        () => request({ redirect_uri: "https://attacker.example/cb" }),
        (a) => expect(a.status).toBe(400),
      ],
      [
        "prompt=none",
        () => request({ prompt: "none" }),
        (a) => expect(a.headers.get("location")).toContain("error=login_required"),
      ],
      ["client_id twice", () => `${request()}&client_id=${clientId}`, (a) => expect(a.status).toBe(400)],
    ];

    function expectSignIn(answer: Response) {
      expect(answer.status).toBe(302);
      expect(answer.headers.get("location")?.startsWith(`${d.idp.url}/authorize`)).toBe(true);
    }

    it(`keeps no record of ${REQUESTS} of them: the client's own are sent to sign in, the others refused at once`, async () => {
      const before = (await storeRecordNames(d)).length;
      const firsts: Response[] = [];
      for (let index = 0; index < REQUESTS; index++) {
        const [, make] = KINDS[index % KINDS.length] ?? [];
        const answer = await get(make?.() ?? "");
        await answer.arrayBuffer();
        if (index < KINDS.length) firsts.push(answer);
      }
      const added = (await storeRecordNames(d)).length - before;
      expect(added, `${added} records added`).toBeLessThanOrEqual(RECORD_BOUND);
      // The first of each kind went where it must.
      for (const [index, [, , check]] of KINDS.entries()) check(firsts[index] as Response);
    }, 120_000);

    it("a person is sent from the authorization request straight to sign in, and back to it: consent, then a code", async () => {
      const { verifier, challenge } = pkce();
      const state = randomBytes(8).toString("hex");
      const url = request({ code_challenge: challenge, state });
      const carol = browser({ user: "carol" });
      const { consent, callback } = await authorize(carol, url, CALLBACK);
      const [first] = carol.seen;
      expect(first?.location?.startsWith(`${d.idp.url}/authorize`)).toBe(true);
      expect(consent?.text).toContain("Strangers test");
      expect(callback?.searchParams.get("state")).toBe(state);
      const answer = await tokenRequest(
        d.url,
        redeemFields({ clientId, redirectUri: CALLBACK, callback, verifier }),
      );
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    });

    it("a request as long as taken (1,024 characters) goes through sign-in whole, in a cookie well under 4 KB", async () => {
      const { challenge } = pkce();
      const length = (url: string) => new URL(url).pathname.length + new URL(url).search.length;
      const params = { code_challenge: challenge, state: "s".repeat(512), x_pad: "" };
      const url = request({ ...params, x_pad: "p".repeat(1_024 - length(request(params))) });
      expect(length(url)).toBe(1_024);
      // A browser naming its user would add a parameter: the identity provider is told instead.
      d.idp.signInAs("dave");
      const dave = browser();
      const { callback } = await authorize(dave, url, CALLBACK);
      const [first] = dave.seen;
      expect(first?.location?.startsWith(`${d.idp.url}/authorize`)).toBe(true);
      const pending = first?.headers.get("set-cookie") ?? "";
      expect(pending).toMatch(/^toolkits_connect=v1\./);
      expect(pending.length).toBeLessThan(2_048);
      expect(callback?.searchParams.get("state")).toBe(params.state);
    });

    it.each([
      ["state", { state: "x".repeat(513) }, "state is longer than 512 characters"],
      ["client_id", { client_id: "x".repeat(513) }, "client_id is longer than 512 characters"],
      ["scope", { scope: "pager ".repeat(43) }, "scope is longer than 256 characters"],
      ["code_challenge", { code_challenge: "x".repeat(129) }, "code_challenge is longer than 128 characters"],
      ["another parameter", { nonce: "x".repeat(257) }, "nonce is longer than 256 characters"],
      [
        "the whole request",
        { state: "x".repeat(500), resource: `https://r.example/${"y".repeat(480)}` },
        "path and query are longer than 1024 characters",
      ],
    ])(
      "%s over its limit: 400 naming it and the limit, without sign-in or a record",
      async (_case, params, says) => {
        const before = (await storeRecordNames(d)).length;
        const answer = await get(request(params));
        expect(answer.status).toBe(400);
        expect(await answer.text()).toContain(says);
        expect(answer.headers.get("set-cookie")).toBeNull();
        expect((await storeRecordNames(d)).length).toBe(before);
      },
    );

    it("a form posted by a browser not signed in is sent on as the same request by GET", async () => {
      const form = new URL(request()).searchParams;
      const answer = await fetch(`${d.url}/oauth/authorize`, {
        method: "POST",
        body: form,
        redirect: "manual",
      });
      expect(answer.status).toBe(303);
      expect(answer.headers.get("location")).toBe(`/oauth/authorize?${form}`);
      expectSignIn(await get(new URL(answer.headers.get("location") ?? "", d.url).href));
    });
  },
);
