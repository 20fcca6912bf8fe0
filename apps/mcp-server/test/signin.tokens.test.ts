import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Logger, silentLogger, type TokenProvider, ToolError } from "@toolkits/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type OAuthGrant, REFRESH_MARGIN_MS } from "../src/credentials/grant.js";
import { tokensFrom } from "../src/credentials/local.js";
import { TokenFile } from "../src/credentials/token-file.js";
import { type MockIssuer, startMockIssuer } from "./signin/fixtures.js";
import { sampleSignIn } from "./signin/samples.js";

const DRIVE_FILE = "https://www.googleapis.com/auth/drive.file";
const USERINFO_EMAIL = "https://www.googleapis.com/auth/userinfo.email";

let issuer: MockIssuer;
let configHome: string;
let store: TokenFile;
let logs: string[];
let tokens: TokenProvider;

const recordingLogger: Logger = {
  ...silentLogger,
  info: (message, fields) => logs.push(`${message} ${JSON.stringify(fields)}`),
};

/** A sign-in issued by the mock, whose access token expires `inMs` from now. */
const expiringIn = (inMs: number, label = "old", overrides: Partial<OAuthGrant> = {}): OAuthGrant =>
  sampleSignIn(label, {
    expiresAt: Date.now() + inMs,
    server: { issuer: issuer.url, token_endpoint: `${issuer.url}/token` },
    ...overrides,
  });

const failure = (promise: unknown) =>
  Promise.resolve(promise).then(
    () => {
      throw new Error("expected a failure");
    },
    (error: unknown) => error as ToolError,
  );

beforeAll(async () => {
  issuer = await startMockIssuer();
});
afterAll(() => issuer.stop());

beforeEach(async () => {
  if (configHome) await rm(configHome, { recursive: true, force: true });
  configHome = await mkdtemp(join(tmpdir(), "toolkits-tokens-"));
  store = new TokenFile(join(configHome, "tokens.json"));
  logs = [];
  tokens = tokensFrom(store, recordingLogger);
});

describe("access tokens from the token file", () => {
  it("answers undefined for a provider without a sign-in, or one it does not know", async () => {
    expect(await tokens("pager", [])).toBeUndefined();
    expect(await tokens("elsewhere", [])).toBeUndefined();
  });

  it("returns a fresh access token without asking the server", async () => {
    await store.save(expiringIn(REFRESH_MARGIN_MS + 60_000, "fresh"));
    const before = issuer.tokenRequests.length;
    expect(await tokens("pager", ["users.read"])).toBe("fresh-access");
    expect(issuer.tokenRequests.length).toBe(before);
  });

  it("refreshes within the margin before expiry, once for concurrent callers, and saves the result", async () => {
    await store.save(expiringIn(REFRESH_MARGIN_MS - 5_000));
    const before = issuer.tokenRequests.length;
    const answers = await Promise.all(Array.from({ length: 5 }, () => tokens("pager", ["users.read"])));
    expect(issuer.tokenRequests.length - before).toBe(1);
    expect(issuer.tokenRequests.at(-1)).toMatchObject({
      grant_type: "refresh_token",
      refresh_token: "old-refresh",
      client_id: "client-id",
      client_secret: "old-secret",
    });
    expect(new Set(answers).size).toBe(1);
    expect(issuer.issued).toContain(answers[0]);
    const saved = await store.get("pager");
    expect(saved?.accessToken.reveal()).toBe(answers[0]);
    expect(saved?.refreshToken?.reveal()).not.toBe("old-refresh");
    expect(saved?.expiresAt).toBeGreaterThan(Date.now() + 50 * 60_000);
    expect(logs.join("\n")).toContain("refreshed the PagerDuty sign-in");
    for (const token of issuer.issued) expect(logs.join("\n")).not.toContain(token);
  });

  it("refreshes once when two processes sharing the file need it at the same time", async () => {
    await store.save(expiringIn(REFRESH_MARGIN_MS - 5_000));
    // Each with its own view of the file and its own refreshes, as two servers would have.
    const servers = [tokens, tokensFrom(new TokenFile(store.path), recordingLogger)];
    const before = issuer.tokenRequests.length;
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, index) => servers[index % 2]?.("pager", ["users.read"])),
    );
    expect(issuer.tokenRequests.length - before).toBe(1);
    expect(new Set(answers).size).toBe(1);
    expect((await store.get("pager"))?.accessToken.reveal()).toBe(answers[0]);
  });

  it("keeps the refresh token when the server does not rotate it", async () => {
    await store.save(expiringIn(-1_000));
    issuer.server.service.once("beforeResponse", (response) => {
      delete response.body.refresh_token;
    });
    await tokens("pager", []);
    expect((await store.get("pager"))?.refreshToken?.reveal()).toBe("old-refresh");
  });

  it("says to log in again when the refresh token is revoked", async () => {
    await store.save(expiringIn(-1_000));
    issuer.server.service.once("beforeResponse", (response) => {
      response.statusCode = 400;
      response.body = { error: "invalid_grant", error_description: "Token has been expired or revoked." };
    });
    const error = await failure(tokens("pager", []));
    expect(error).toBeInstanceOf(ToolError);
    expect(error.kind).toBe("unauthenticated");
    expect(error.retryable).toBe(false);
    expect(error.message).toContain("invalid_grant");
    expect(error.message).toContain("Run `toolkits-mcp login pager` again");
  });

  it("says to log in again when an expired sign-in holds no refresh token", async () => {
    await store.save(expiringIn(-1_000, "old", { refreshToken: undefined }));
    const error = await failure(tokens("pager", []));
    expect(error.kind).toBe("unauthenticated");
    expect(error.message).toContain("no refresh token");
  });

  it("reports an unreachable server as retryable", async () => {
    await store.save(
      expiringIn(-1_000, "old", {
        server: { issuer: "http://127.0.0.1:9", token_endpoint: "http://127.0.0.1:9/token" },
      }),
    );
    const error = await failure(tokens("pager", []));
    expect(error.kind).toBe("upstream_unavailable");
    expect(error.retryable).toBe(true);
    expect(error.message).not.toContain("old-refresh");
  });

  it("refuses a Google sign-in that was not granted a scope the tool needs", async () => {
    await store.save(expiringIn(3_600_000, "google", { provider: "google", scopes: [DRIVE_FILE] }));
    expect(await tokens("google", [DRIVE_FILE])).toBe("google-access");
    const error = await failure(tokens("google", [DRIVE_FILE, USERINFO_EMAIL]));
    expect(error.kind).toBe("forbidden");
    expect(error.message).toContain(USERINFO_EMAIL);
    expect(error.message).toContain("toolkits-mcp login google");
  });

  it("turns an unreadable store into an unauthenticated error naming the file", async () => {
    const broken = tokensFrom(new TokenFile(configHome), silentLogger); // a directory, not a file
    const error = await failure(broken("pager", []));
    expect(error.kind).toBe("unauthenticated");
    expect(error.message).toContain(`Cannot read the token store ${configHome}`);
  });
});
