import { defineTool, lazy, READ_ONLY_HINTS } from "@toolkits/core";
import { z } from "zod";
import { collectPages, createPagerClient } from "../client.js";
import { pagerAuth, SCOPES } from "../params.js";
import { onCallRecord, onCallSchema, userRecord, userSchema } from "../records.js";
import type { PdOnCall } from "../types.js";

/** How far ahead the next shift is looked for. */
export const LOOK_AHEAD_DAYS = 30;
const DAY_MS = 86_400_000;

const shiftSchema = lazy(() => onCallSchema().omit({ user: true }));

const inputSchema = lazy(() => z.object({}));
const outputSchema = lazy(() =>
  z.object({
    user: userSchema(),
    on_call_now: z.boolean(),
    current_shifts: z.array(shiftSchema()),
    next_shift: shiftSchema().optional().describe(`Absent when none starts within ${LOOK_AHEAD_DAYS} days`),
  }),
);

export const whoAmI = defineTool({
  name: "Pager.WhoAmI",
  title: "Who am I",
  description: `Gets the signed-in user's profile and on-call state: whether on call now, the current shifts, and the next shift starting within ${LOOK_AHEAD_DAYS} days.`,
  input: inputSchema,
  output: outputSchema,
  hints: READ_ONLY_HINTS,
  auth: pagerAuth(SCOPES.users, SCOPES.oncalls),
  async handler(_input, context) {
    const client = await createPagerClient(context);
    const me = await client.me();
    const now = Date.now();
    // A window is needed: without since/until PagerDuty answers only for this instant.
    const { items } = await collectPages((page) =>
      client.onCalls({
        ...page,
        user_ids: [me.id],
        since: new Date(now).toISOString(),
        until: new Date(now + LOOK_AHEAD_DAYS * DAY_MS).toISOString(),
      }),
    );
    const current = items.filter((entry) => startsBy(entry, now) && !endsBy(entry, now));
    const next = items
      .filter((entry) => !startsBy(entry, now))
      .sort((a, b) => Date.parse(a.start ?? "") - Date.parse(b.start ?? ""))[0];
    return {
      user: userRecord(me),
      on_call_now: current.length > 0,
      current_shifts: current.map(shift),
      next_shift: next && shift(next),
    };
  },
});

const startsBy = (entry: PdOnCall, time: number) => !entry.start || Date.parse(entry.start) <= time;
const endsBy = (entry: PdOnCall, time: number) => !!entry.end && Date.parse(entry.end) <= time;

function shift(entry: PdOnCall): z.input<ReturnType<typeof shiftSchema>> {
  const { user: _, ...rest } = onCallRecord(entry);
  return rest;
}
