// The options module's entry: the settings table and what is generated from it live in options/.
export { program } from "./options/program.js";
export type {
  Commands,
  LoginOptions,
  OAuthClientConfig,
  ServerOptions,
  SigninSettings,
} from "./options/types.js";
