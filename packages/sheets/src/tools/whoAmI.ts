import { defineTool, lazy, READ_ONLY_HINTS } from "@toolkits/core";
import { z } from "zod";
import { createGoogleClient } from "../client.js";
import { DRIVE_FILE_SCOPE, googleAuth, USERINFO_EMAIL_SCOPE, USERINFO_PROFILE_SCOPE } from "../scopes.js";

const bytes = (value: string | null | undefined) => (value ? Number(value) : undefined);

const inputSchema = lazy(() => z.object({}));
const outputSchema = lazy(() =>
  z.object({
    user: z.object({
      id: z.string().optional(),
      name: z.string().optional(),
      email: z.string().optional(),
      email_verified: z.boolean().optional(),
      picture: z.string().optional().describe("Profile photo URL"),
      domain: z.string().optional().describe("Google Workspace domain"),
      locale: z.string().optional(),
    }),
    drive: z.object({
      storage_limit_bytes: z.number().optional().describe("Absent when unlimited"),
      storage_used_bytes: z.number().optional(),
      drive_used_bytes: z.number().optional(),
      can_create_shared_drives: z.boolean().optional(),
    }),
    access: z.string(),
  }),
);

export const whoAmI = defineTool({
  name: "Sheets.WhoAmI",
  title: "Who am I",
  description:
    "Returns the signed-in Google user's profile (name, email, picture) and spreadsheet environment: Drive storage quota and use, and what this app can reach.",
  input: inputSchema,
  output: outputSchema,
  hints: READ_ONLY_HINTS,
  auth: googleAuth(DRIVE_FILE_SCOPE, USERINFO_PROFILE_SCOPE, USERINFO_EMAIL_SCOPE),
  async handler(_input, context) {
    const client = createGoogleClient(context);
    const [user, about] = await Promise.all([client.userInfo(), client.driveAbout()]);
    return {
      user: {
        id: user.id,
        name: user.name ?? about.user?.displayName ?? undefined,
        email: user.email ?? about.user?.emailAddress ?? undefined,
        email_verified: user.verified_email,
        picture: user.picture ?? about.user?.photoLink ?? undefined,
        domain: user.hd,
        locale: user.locale,
      },
      drive: {
        storage_limit_bytes: bytes(about.storageQuota?.limit),
        storage_used_bytes: bytes(about.storageQuota?.usage),
        drive_used_bytes: bytes(about.storageQuota?.usageInDrive),
        can_create_shared_drives: about.canCreateDrives ?? undefined,
      },
      access:
        "drive.file: spreadsheets this app created or the user picked with Sheets.GenerateFilePickerUrl; no others.",
    };
  },
});
