import { description } from "../support/contract.js";

// Bugs the fuzzing found and reported but not fixed (see known-issues.test.ts, which pins each one
// with an expected failure). The fuzz tests skip argument sets that hit them, so they keep
// checking everything else.

/** The activity types the upstream's `type` query parameter takes (some with an object type id). */
const ACTIVITY_TYPES: readonly RegExp[] = (
  description.paths["/v1/activities"]?.get?.parameters?.find((p) => p.name === "type")?.schema.enum ?? []
).map((value) => new RegExp(`^${String(value).replace(/<object_type_id>/, "\\d+")}$`));

/** Tool parameters sent as that `type` without being checked against it. */
const FREE_ACTIVITY_TYPES: Readonly<Record<string, string>> = {
  "MarketingApi.ListRecentActivities": "activity_type",
  "MarketingApi.GetCustomerActivities": "activity_type_filter",
};

/** An activity type the upstream does not take, for a tool that sends it unchecked. */
export function uncheckedActivityType(tool: string, args: Record<string, unknown>): boolean {
  const param = FREE_ACTIVITY_TYPES[tool];
  const value = param === undefined ? undefined : args[param];
  return typeof value === "string" && !ACTIVITY_TYPES.some((type) => type.test(value));
}

/**
 * A header value fetch refuses to send (NUL, CR or LF, or a character outside Latin-1): the call
 * fails as if the network had.
 */
export function unsendableHeader(tool: string, args: Record<string, unknown>): boolean {
  return (
    tool === "MarketingApi.GetSubscriptionPreferences" &&
    /[\0\n\r]|[^\0-\xff]/.test(String(args.accept_language ?? ""))
  );
}

/** Whether `args` hit a reported, unfixed bug of `tool`. */
export const hitsKnownIssue = (tool: string, args: Record<string, unknown>): boolean =>
  uncheckedActivityType(tool, args) || unsendableHeader(tool, args);
