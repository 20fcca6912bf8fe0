import { describe, expect, it } from "vitest";
import { redact, Secret, ToolError, upstreamMessage } from "../src/index.js";

const base64 = (text: string) => Buffer.from(text).toString("base64");
const base64url = (text: string) => Buffer.from(text).toString("base64url");

describe("redact: the forms a long secret travels in", () => {
  // Characters every encoding changes: /, +, =, &, space, a quote and non-ASCII.
  const value = 'rk_live/Q+9z=&a b"é~';
  new Secret("EXAMPLE_KEY", value);

  it.each([
    ["raw", value],
    ["Bearer", `Bearer ${value}`],
    ["Token token=", `Token token=${value}`],
    ["URL-encoded", encodeURIComponent(value)],
    [
      "URL-encoded, lowercase hex",
      encodeURIComponent(value).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()),
    ],
    ["form-encoded", new URLSearchParams({ key: value }).toString()],
    ["base64", base64(value)],
    ["base64url", base64url(value)],
    ["JSON-escaped", JSON.stringify({ key: value })],
    ["JSON-escaped with \\/", JSON.stringify({ key: value }).replaceAll("/", "\\/")],
    ["Basic, secret as password", `Basic ${base64(`user:${value}`)}`],
    ["Basic, secret one byte later", `Basic ${base64(`users:${value}`)}`],
    ["Basic, secret two bytes later", `Basic ${base64(`userss:${value}`)}`],
    ["Basic, secret as user name", `Basic ${base64(`${value}:`)}`],
  ])("scrubs the %s form", (_form, echoed) => {
    const text = `upstream said: ${echoed} is not valid`;
    const scrubbed = redact(text);
    expect(scrubbed).toContain("[redacted]");
    expect(scrubbed).not.toContain(value);
    expect(scrubbed).not.toContain(encodeURIComponent(value));
    expect(scrubbed).not.toContain(base64(value).slice(0, 12));
    expect(scrubbed.startsWith("upstream said: ")).toBe(true);
    expect(scrubbed.endsWith(" is not valid")).toBe(true);
  });

  it("leaves text without the secret as it is", () => {
    const text = "GET /campaigns failed with HTTP 401: Unauthorized request.";
    expect(redact(text)).toBe(text);
  });

  it("scrubs error messages at construction and upstream messages", () => {
    const error = new ToolError("unauthenticated", `key ${encodeURIComponent(value)} refused`);
    expect(error.message).toBe("key [redacted] refused");
    const body = JSON.stringify({ error: { message: `Authorization: Basic ${base64(`api:${value}`)}` } });
    expect(upstreamMessage(body)).not.toContain(base64(value).slice(4, 16));
  });
});

describe("redact: secrets shorter than 6 characters", () => {
  new Secret("SHORT_TOKEN", "Qx4p");
  new Secret("ONE_CHARACTER_PIN", "7");

  it.each([
    "key Qx4p is invalid",
    "Bearer Qx4p",
    "Authorization: Token token=Qx4p",
    'Authorization: Token token="Qx4p"',
    "GET /users?token=Qx4p&limit=2",
    "(Qx4p).",
    `"api_key":"Qx4p"`,
    encodeURIComponent("Qx4p"),
    `Basic ${base64("Qx4p")}`,
    `Basic ${base64("api:Qx4p")}`,
    `Basic ${base64url("user-name:Qx4p")}`,
    "pin 7 rejected",
  ])("scrubs it as a whole token: %s", (text) => {
    const scrubbed = redact(text);
    expect(scrubbed).toContain("[redacted]");
    expect(scrubbed).not.toMatch(/(?<![\p{L}\p{N}_-])(Qx4p|7)(?![\p{L}\p{N}_-])/u);
  });

  it("always scrubs it right after an auth scheme, whatever follows", () => {
    expect(redact("Bearer Qx4pX")).toBe("Bearer [redacted]X");
    expect(redact("Token token=Qx4p_1")).toBe("Token token=[redacted]_1");
  });

  it.each([
    "aQx4pb",
    "Qx4p_2",
    "id-Qx4p",
    "user Qx4pz",
    "17 items",
    "v7",
    "HTTP 404",
    "Authorization configuration_incomplete",
    `Basic ${base64("api:Qx4pz")}`,
  ])("leaves unrelated text containing it alone: %s", (text) => {
    expect(redact(text)).toBe(text);
  });
});

describe("redact: a long-running server wrapping ever new tokens", () => {
  it("remembers the latest 4,096 values and forgets older ones, so memory and redaction time stay bounded", () => {
    const tokens = Array.from({ length: 4_097 }, (_, i) => `rotating-token-${String(i).padStart(5, "0")}-x`);
    for (const token of tokens) new Secret("PAGER_ACCESS_TOKEN", token);
    expect(redact(`latest ${tokens[4_096]}`)).toBe("latest [redacted]");
    expect(redact(`oldest ${tokens[1]}`)).toBe("oldest [redacted]");
    expect(redact(`forgotten ${tokens[0]}`)).toBe(`forgotten ${tokens[0]}`);
  });

  it("keeps a value wrapped again recently, however long ago it was first seen", () => {
    const first = "re-wrapped-token-value-1";
    new Secret("GOOGLE_ACCESS_TOKEN", first);
    for (let i = 0; i < 4_000; i++) new Secret("X", `filler-token-${i}-abcdef`);
    new Secret("GOOGLE_ACCESS_TOKEN", first);
    for (let i = 0; i < 200; i++) new Secret("X", `more-filler-${i}-abcdef`);
    expect(redact(first)).toBe("[redacted]");
  });
});
