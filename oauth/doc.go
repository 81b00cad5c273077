// Package oauth lets MCP clients that cannot send a static token (Claude's
// and ChatGPT's connectors, VS Code, phones) reach a vault served over
// HTTP, by the MCP authorization spec (2025-06-18 on):
//
//   - the MCP endpoints are a protected resource (RFC 9728): a request
//     without a token gets 401 with WWW-Authenticate naming the resource
//     metadata, which names the authorization server;
//   - cairn is that authorization server (RFC 8414 metadata, authorization
//     code with PKCE S256 only, Dynamic Client Registration (RFC 7591) and
//     Client ID Metadata Documents, `resource` indicators (RFC 8707),
//     `iss` in the authorization response (RFC 9207), rotating refresh
//     tokens, revocation (RFC 7009)), built on zitadel/oidc's provider
//     package (op): the protocol is the library's; what is cairn's is the
//     storage, the clients, the sign-in and consent page, and the grants;
//   - a person signs in on a page cairn serves, as a principal, with a
//     password set from the command line (a bcrypt hash in
//     .cairn/secrets/), sees what the client asks and may narrow it;
//   - a grant is a cairn token (mcptools.TokenRecord of kind "oauth"): the
//     same ceiling, toolsets and projects, listed and revoked by `cairn
//     token`, its writes authored by the principal and naming the client.
//
// docs/oauth.md describes the whole, with the decisions where the specs
// leave a choice.
package oauth
