// The option table and what is generated from it: the commander program, the typed options, help.
export { program } from "./program.js";
export type {
  Commands,
  LoginOptions,
  OAuthClientConfig,
  ServerOptions,
  SigninSettings,
} from "./types.js";
