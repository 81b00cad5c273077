package oauth

import (
	"net/http"
	"slices"
	"strings"
)

// serverMetadata is the authorization server's metadata (RFC 8414), also
// at the OpenID discovery path for clients that look there. Written here,
// not the library's discovery: it names the registration endpoint and
// Client ID Metadata Documents, says PKCE S256 only and the code flow
// only, and leaves out what cairn does not serve.
func (s *Server) serverMetadata(w http.ResponseWriter, r *http.Request) {
	p := s.o.PublicURL
	auth := []string{"none", "client_secret_basic", "client_secret_post"}
	m := map[string]any{
		"issuer":                                         p,
		"authorization_endpoint":                         p + pathAuthorize,
		"token_endpoint":                                 p + pathToken,
		"registration_endpoint":                          p + pathRegister,
		"revocation_endpoint":                            p + pathRevoke,
		"jwks_uri":                                       p + pathKeys,
		"scopes_supported":                               []string{ScopeRead, ScopeWrite},
		"response_types_supported":                       []string{"code"},
		"response_modes_supported":                       []string{"query"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token"},
		"token_endpoint_auth_methods_supported":          auth,
		"revocation_endpoint_auth_methods_supported":     auth,
		"code_challenge_methods_supported":               []string{"S256"},
		"client_id_metadata_document_supported":          true,
		"authorization_response_iss_parameter_supported": true,
		"subject_types_supported":                        []string{"public"},
		"id_token_signing_alg_values_supported":          []string{"ES256"},
	}
	w.Header().Set("Access-Control-Allow-Origin", "*")
	writeJSON(w, http.StatusOK, m)
}

// resourceMetadata is the protected resource's metadata (RFC 9728): at
// the well-known path for the whole server, and with an endpoint's path
// appended for that endpoint.
func (s *Server) resourceMetadata(w http.ResponseWriter, r *http.Request) {
	resource := s.o.PublicURL
	if sub := strings.TrimPrefix(r.URL.Path, wellKnownPRM); sub != "" {
		if !slices.Contains(s.o.Resources, sub) {
			http.NotFound(w, r)
			return
		}
		resource += sub
	}
	w.Header().Set("Access-Control-Allow-Origin", "*")
	writeJSON(w, http.StatusOK, map[string]any{
		"resource":                 resource,
		"authorization_servers":    []string{s.o.PublicURL},
		"scopes_supported":         []string{ScopeRead, ScopeWrite},
		"bearer_methods_supported": []string{"header"},
		"resource_name":            "cairn",
	})
}

// Challenge is the WWW-Authenticate value of a 401 at the MCP endpoint at
// path: where its resource metadata is, and the scopes to ask.
func (s *Server) Challenge(path string) string {
	return `Bearer realm="cairn", resource_metadata="` + s.o.PublicURL + wellKnownPRM + path + `", scope="` + ScopeRead + ` ` + ScopeWrite + `"`
}

// Resource is the URL of the MCP endpoint at path, as tokens name it.
func (s *Server) Resource(path string) string { return s.o.PublicURL + path }
