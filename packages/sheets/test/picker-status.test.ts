import { memoryState, Secret, type ToolContext } from "@toolkits/core";
import { describe, expect, it } from "vitest";
import { getFilePickerStatus, PICKER_TTL_MS } from "../src/index.js";
import { openPickerSession, recordPick } from "../src/picker/session.js";

const TOKEN = new Secret("GOOGLE_ACCESS_TOKEN", "ya29.status-test-token");
const CONFIG = { apiKey: "AIzaSy-status-key", appId: "42" };

/** The tool as a view calls it: with the caller's own state, and nothing else. */
const statusOf = (state: ToolContext["state"], picker_id: string) =>
  getFilePickerStatus.handler({ picker_id }, { state } as ToolContext);

describe("Sheets.GetFilePickerStatus", () => {
  it("answers waiting, then the picked files (never the token), then expired", async () => {
    const state = memoryState();
    const session = await openPickerSession(state, CONFIG, TOKEN);
    const expires_at = new Date(session.expiresAt).toISOString();
    expect(await statusOf(state, session.id)).toEqual({ status: "waiting", expires_at });

    await recordPick(state, session, [
      { id: "sheet-1", name: "Budget", url: "https://docs.google.com/x", mimeType: "m" },
    ]);
    const picked = await statusOf(state, session.id);
    expect(picked).toEqual({
      status: "picked",
      files: [{ id: "sheet-1", name: "Budget", url: "https://docs.google.com/x" }],
      expires_at,
    });
    expect(JSON.stringify(picked)).not.toContain(TOKEN.reveal());

    // A link opened more than 10 minutes ago has expired, even where the store still holds it.
    const old = await openPickerSession(state, CONFIG, TOKEN, Date.now() - PICKER_TTL_MS - 1);
    expect(await statusOf(state, old.id)).toEqual({ status: "expired" });
  });

  it("finds nothing of another person's link: each person's tools have their own state", async () => {
    const alice = memoryState();
    const session = await openPickerSession(alice, CONFIG, TOKEN);
    expect(await statusOf(memoryState(), session.id)).toEqual({ status: "expired" });
  });

  it("takes only a picker id, as the picker URL ends with one", () => {
    expect(getFilePickerStatus.input.safeParse({ picker_id: "../../etc" }).success).toBe(false);
    expect(getFilePickerStatus.input.safeParse({ picker_id: "a".repeat(32) }).success).toBe(true);
  });
});
