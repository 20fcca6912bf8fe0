import { defineTool, lazy, READ_ONLY_HINTS } from "@toolkits/core";
import { z } from "zod";
import { createPagerClient } from "../client.js";
import { limitParam, offsetParam, pageParams, pagerAuth, SCOPES } from "../params.js";
import { listOutput, listResult, userRecord, userSchema } from "../records.js";

const inputSchema = lazy(() => z.object({ limit: limitParam(), offset: offsetParam() }));
const outputSchema = lazy(() => listOutput("users", userSchema()));

export const listUsers = defineTool({
  name: "Pager.ListUsers",
  title: "List users",
  description: "Lists the account's users with email, role, job title, time zone and teams.",
  input: inputSchema,
  output: outputSchema,
  hints: READ_ONLY_HINTS,
  auth: pagerAuth(SCOPES.users),
  async handler(input, context) {
    const page = pageParams(input);
    const client = await createPagerClient(context);
    return listResult("users", await client.users({ ...page, include: ["teams"] }), userRecord);
  },
});
