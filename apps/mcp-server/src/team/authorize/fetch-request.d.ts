// oidc-provider's own fetch for outside resources (client metadata documents): the one that
// refuses special-use addresses. The package ships no types for its helpers.
declare module "oidc-provider/lib/helpers/fetch_request.js" {
  import type { Provider } from "oidc-provider";
  export default function fetchRequest(provider: Provider, url: string, init: RequestInit): Promise<Response>;
}
