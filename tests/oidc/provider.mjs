// An OpenID Connect provider for the sign-in tests: oidc-provider (OpenID Certified),
// its development login and consent pages, and the accounts in the JSON file ACCOUNTS
// ({"login": {"email", "name", "groups", "disabled"?}}), read again at every lookup so a
// test can remove or disable someone. Clients: "footnoted" (the server under test),
// "other" (another application: its tokens carry another audience) and "short" (ID
// tokens that expire after a second). PORT and REDIRECT_URIS (comma-separated) come
// from the environment; it prints "listening" when it is up.
import fs from "node:fs";
import Provider from "oidc-provider";

const port = Number(process.env.PORT);
const issuer = `http://127.0.0.1:${port}`;
const redirects = process.env.REDIRECT_URIS.split(",");
const accounts = () => JSON.parse(fs.readFileSync(process.env.ACCOUNTS, "utf8"));

const client = (id) => ({
  client_id: id,
  redirect_uris: redirects,
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"],
  token_endpoint_auth_method: "none",
});

const provider = new Provider(issuer, {
  clients: [client("footnoted"), client("other"), client("short")],
  async findAccount(_ctx, sub) {
    const account = accounts()[sub];
    if (!account || account.disabled) return undefined;
    return {
      accountId: sub,
      async claims() {
        return { sub, email: account.email, name: account.name, groups: account.groups || [] };
      },
    };
  },
  claims: { openid: ["sub"], email: ["email"], profile: ["name"], groups: ["groups"] },
  scopes: ["openid", "offline_access", "email", "profile", "groups"],
  pkce: { required: () => true },
  issueRefreshToken: async (_ctx, c) => c.grantTypeAllowed("refresh_token"),
  ttl: {
    IdToken: (_ctx, _token, c) => (c.clientId === "short" ? 1 : 3600),
    AccessToken: 3600, AuthorizationCode: 60, Grant: 3600, Interaction: 600, Session: 3600,
    RefreshToken: 3600,
  },
  features: { devInteractions: { enabled: true } },
  cookies: { keys: ["footnoted-test-only"] },
});
provider.listen(port, "127.0.0.1", () => console.log("listening"));
