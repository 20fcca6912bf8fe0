#!/usr/bin/env node
// What the built-in authorization server's access tokens cost the front door per call, next to a
// static token: the server's own `authGuard` (http/guards/auth.ts) on one request's Authorization
// header, which checks the token (a static token: SHA-256 and a constant-time comparison; a built-in
// token: an RS256 JWT, `at+jwt`, checked by signature, issuer, audience and expiry against the key in
// memory, then whether its grant is alive: one existence check in the store, here a redis-server on
// loopback), names the caller and, for a built-in token, narrows its view to its scopes. The tokens
// are what the server issues: a JWT with the claims and header oidc-provider writes, signed by a
// 2048-bit RSA key as the server's. The grant check is also measured alone (`grantAlive` on the
// team store over Redis). Rounds alternate so drift affects each alike. The guard is TypeScript the
// dist bundle hides in a chunk, so it is bundled here with esbuild into a temporary directory first.
// Needs redis-server (Debian: `sudo apt-get install -y redis-server`).
// Usage: node bench/builtin-auth.mjs [--calls 20000] [--warmup 2000]
import { generateKeyPairSync, randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { SignJWT } from "jose";
import { fixed, importBundled, median, percentile, report, roundOrder, timed } from "./lib.mjs";
import { startRedis } from "./redis.mjs";

const { values } = parseArgs({
  options: { calls: { type: "string", default: "20000" }, warmup: { type: "string", default: "2000" } },
});
const CALLS = Number(values.calls);
const WARMUP = Number(values.warmup);
const ROUNDS = 20;
const GOAL_MS = 0.2;
const ISSUER = "https://mcp.example.com";
const AUDIENCE = `${ISSUER}/mcp`;

const work = mkdtempSync(join(tmpdir(), "toolkits-builtin-auth-bench-"));
let redis;
let store;
try {
  const code = await bundleGuard(work);
  redis = await startRedis(work);
  const logger = { debug() {}, info() {}, warn() {}, error() {} };
  store = await code.openStore({ url: redis.url, key: randomBytes(32).toString("base64") }, logger);
  const grantId = randomBytes(32).toString("base64url");
  await store.set(`tk:as:Grant:${code.grantClaim(grantId)}`, { payload: { accountId: "alice" } }, 3_600_000);
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const kid = randomBytes(9).toString("base64url");
  const staticToken = randomBytes(32).toString("hex");
  const builtinToken = await new SignJWT({
    jti: randomUUID(),
    client_id: "https://claude.ai/oauth/claude-code-client-metadata",
    scope: "pager sheets marketing",
    gid: code.grantClaim(grantId),
  })
    .setProtectedHeader({ alg: "RS256", typ: "at+jwt", kid })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject("https://idp.example.com#00u1a2b3")
    .setIssuedAt()
    .setExpirationTime("1h")
    .sign(privateKey);
  const config = { staticTokens: [{ name: "alice", token: staticToken }], builtin: true };
  const builtin = {
    issuer: ISSUER,
    audience: AUDIENCE,
    key: (id) => (id === kid ? publicKey : undefined),
    grantAlive: (claim) => code.grantAlive(store, claim),
  };
  const verifier = code.tokenVerifier(config, logger, builtin);
  const rules = code.scopeRules(code.tools);
  const guard = code.authGuard({
    verifier,
    resourceMetadataUrl: `${ISSUER}/.well-known/oauth-protected-resource/mcp`,
    perUser: true,
    viewOf: (authInfo) =>
      authInfo.extra?.scoped ? code.scopesView(authInfo.scopes, rules.needs) : undefined,
  });
  const refused = { writeHead: () => refused, end: () => refused, setHeader() {}, headersSent: false };
  const request = (token) => ({ headers: { authorization: `Bearer ${token}` } });
  const runners = {
    static: async () => {
      const who = await guard(request(staticToken), refused);
      if (who?.caller.principal !== "token:alice") throw new Error("the static token was refused");
    },
    builtin: async () => {
      const who = await guard(request(builtinToken), refused);
      if (!who?.view || !who.caller.principal) throw new Error("the built-in token was refused");
    },
    grant: async () => {
      if (!(await code.grantAlive(store, code.grantClaim(grantId))))
        throw new Error("the grant is not alive");
    },
  };

  const ms = { static: [], builtin: [], grant: [] };
  const ratios = [];
  for (const run of Object.values(runners)) await timed(run, WARMUP, []);
  for (let round = 0; round < ROUNDS; round++) {
    const taken = { static: [], builtin: [], grant: [] };
    for (const name of roundOrder(Object.keys(runners), round))
      await timed(runners[name], CALLS / ROUNDS, taken[name]);
    for (const name of Object.keys(ms)) ms[name].push(...taken[name]);
    ratios.push(percentile(taken.builtin, 50) - percentile(taken.static, 50));
  }
  const at = (name, p) => percentile(ms[name], p);
  const row = (measure, name) => ({
    measure,
    "p50 ms": fixed(at(name, 50), 4),
    "p90 ms": fixed(at(name, 90), 4),
    "p99 ms": fixed(at(name, 99), 4),
  });
  const extra = median(ratios);
  report(
    `The front door (authGuard) on one request, in process (${CALLS} calls each after ${WARMUP} to warm up)`,
    [
      row("static token (SHA-256, constant-time comparison)", "static"),
      row(
        "built-in access token (RS256 JWT, at+jwt, key in memory, grant alive in Redis, view by scopes)",
        "builtin",
      ),
      {
        measure: "built-in − static, p50 (median of the rounds' differences)",
        "p50 ms": fixed(extra, 4),
        "p90 ms": fixed(at("builtin", 90) - at("static", 90), 4),
        "p99 ms": fixed(at("builtin", 99) - at("static", 99), 4),
        goal: `p50 < +${GOAL_MS}`,
        met: extra < GOAL_MS,
      },
      {
        ...row("the grant check alone (one EXISTS on redis-server over loopback)", "grant"),
        goal: `p50 < ${GOAL_MS}`,
        met: at("grant", 50) < GOAL_MS,
      },
    ],
  );
  console.log(
    `\nbuilt-in token validation over static tokens, p50 +${fixed(extra, 4)} ms (goal < +${GOAL_MS} ms); the grant check alone on Redis, p50 ${fixed(at("grant", 50), 4)} ms (goal < ${GOAL_MS} ms)`,
  );
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
} finally {
  await store?.close();
  await redis?.stop();
  rmSync(work, { recursive: true, force: true });
}

/** The server's front door and scope rules, bundled from src/ as the server's own bundle is. */
function bundleGuard(dir) {
  return importBundled(dir, "guard", [
    'export { authGuard } from "./src/http/guards/auth.ts";',
    'export { tokenVerifier } from "./src/http/auth/verify.ts";',
    'export { scopeRules } from "./src/team/authorize/scopes.ts";',
    'export { scopesView } from "./src/views.ts";',
    'export { openStore } from "./src/team/store/index.ts";',
    'export { grantAlive, grantClaim } from "./src/team/authorize/adapter.ts";',
    'import { TOOLKITS } from "./src/toolkits.ts";',
    "export const tools = Object.values(TOOLKITS).flatMap((kit) => kit.tools);",
  ]);
}
