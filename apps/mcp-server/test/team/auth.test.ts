import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { silentLogger } from "@toolkits/core";
import { describe, expect, it } from "vitest";
import { authConfig, namedTokenPrincipal, perUserProblem, principalOf } from "../../src/http/auth/config.js";
import { tokenVerifier } from "../../src/http/auth/verify.js";
import { DEFAULT_RATE_LIMIT_SPEC, parseRateLimits, windowsFor } from "../../src/team/limits.js";
import { runCli } from "../spawn.js";

const ALICE = "a".repeat(40);
const BOB = "b".repeat(40);
const offLoopback = { loopback: false, warn: () => {} };

describe("who is calling, per person", () => {
  it("a named static token identifies its holder; an unnamed one identifies nobody", async () => {
    const config = authConfig({ bearerTokens: `alice:${ALICE}, ${BOB}` }, offLoopback);
    const verifier = tokenVerifier(config ?? { staticTokens: [] }, silentLogger);
    expect(principalOf(await verifier.verifyAccessToken(ALICE))).toBe("token:alice");
    expect(principalOf(await verifier.verifyAccessToken(BOB))).toBeUndefined();
    await expect(verifier.verifyAccessToken(`alice:${ALICE}`)).rejects.toThrow("Unknown bearer token");
  });

  it("the connect pages' token form finds the same person, and nobody for other tokens", () => {
    const config = authConfig({ bearerTokens: `alice:${ALICE},bob:${BOB}` }, offLoopback);
    const identify = namedTokenPrincipal(config);
    expect(identify(ALICE)).toBe("token:alice");
    expect(identify(BOB)).toBe("token:bob");
    expect(identify("c".repeat(40))).toBeUndefined();
  });

  it("a named token must still be long enough off loopback, the name not counting", () => {
    expect(() => authConfig({ bearerTokens: "alice:short" }, offLoopback)).toThrow(
      "MCP_HTTP_BEARER_TOKENS has 1 token shorter than 32 characters. Make one with `openssl rand -hex 32`.",
    );
  });

  it("per-user serving is refused without a way to tell people apart, saying what to set", () => {
    expect(perUserProblem(undefined)).toMatch(
      /^Per-user credentials need to know who is calling: set MCP_OAUTH_ISSUER/,
    );
    const unnamed = authConfig({ bearerTokens: `alice:${ALICE},${BOB}` }, offLoopback);
    expect(perUserProblem(unnamed)).toContain("1 token has no name");
    const named = authConfig({ bearerTokens: `alice:${ALICE},bob:${BOB}` }, offLoopback);
    expect(perUserProblem(named)).toBeUndefined();
    const oauth = authConfig(
      {
        oauthIssuer: "https://id.example",
        oauthAudience: "mcp",
        oauthJwksUrl: "https://id.example/jwks",
      },
      offLoopback,
    );
    expect(perUserProblem(oauth)).toBeUndefined();
  });

  it("the binary refuses to start per-user without a front door, over stdio, or without MCP_STORE_KEY, saying what to set", async () => {
    const key = randomBytes(32).toString("base64");
    const perUser = ["--credentials", "per-user"];
    // The store opens first: a file of its own in the temporary directory, not one in the home directory.
    const store = pathToFileURL(join(tmpdir(), `toolkits-auth-${randomBytes(6).toString("hex")}.json`)).href;
    const noDoor = await runCli(["--transport", "http", "--port", "0", ...perUser], {
      MCP_STORE_KEY: key,
      MCP_STORE_URL: store,
    });
    expect(noDoor.code).toBe(2);
    expect(noDoor.stderr).toContain("set MCP_OAUTH_ISSUER, MCP_OAUTH_AUDIENCE and MCP_OAUTH_JWKS_URL");
    expect(noDoor.stderr).toContain("MCP_HTTP_BEARER_TOKENS=alice:<token>,bob:<token>");
    const stdio = await runCli(perUser, { MCP_STORE_KEY: key });
    expect(stdio.code).toBe(2);
    expect(stdio.stderr).toContain("--credentials per-user needs --transport http");
    const noKey = await runCli(["--transport", "http", "--port", "0", ...perUser], {
      MCP_HTTP_BEARER_TOKENS: `alice:${ALICE}`,
    });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain("set it to 32 random bytes in base64");
  });
});

describe("per-person rate limits", () => {
  it("default to the upstreams' documented limits", () => {
    expect(parseRateLimits(DEFAULT_RATE_LIMIT_SPEC)).toEqual({
      pager: { requests: 960, periodS: 60 },
      "sheets-read": { requests: 60, periodS: 60 },
      "sheets-write": { requests: 60, periodS: 60 },
      marketing: { requests: 10, periodS: 1 },
    });
  });

  it("take any subset, and refuse a malformed entry naming it and the allowed form", () => {
    expect(parseRateLimits("pager=60/10s").pager).toEqual({ requests: 60, periodS: 10 });
    expect(parseRateLimits("pager=60/10s")["sheets-read"]).toEqual({ requests: 60, periodS: 60 });
    expect(() => parseRateLimits("pagr=60/10s")).toThrow(
      'Rate limit "pagr=60/10s" is not <budget>=<requests>/<seconds>s with budget one of pager, sheets-read, sheets-write, marketing (e.g. pager=960/60s).',
    );
    expect(() => parseRateLimits("pager=0/10s")).toThrow('Rate limit "pager=0/10s"');
  });

  it("are counted in windows such that no stretch of one period, wherever it starts, sees more than the budget", () => {
    for (const limit of [
      { requests: 60, periodS: 10 },
      { requests: 960, periodS: 60 },
      { requests: 60, periodS: 60 },
      { requests: 10, periodS: 1 },
      { requests: 7, periodS: 3 },
    ]) {
      const { points, durationS } = windowsFor(limit);
      // A stretch of periodS seconds overlaps at most this many consecutive windows.
      const touched = Math.ceil(limit.periodS / durationS) + 1;
      expect(points * touched, JSON.stringify(limit)).toBeLessThanOrEqual(limit.requests);
      expect(points).toBeGreaterThanOrEqual(1);
    }
    expect(windowsFor({ requests: 60, periodS: 10 })).toEqual({ points: 5, durationS: 1 });
  });
});
