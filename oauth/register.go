package oauth

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// maxRequestBody bounds the body of every request to the authorization
// server's endpoints (registration, token, revocation, consent): each is
// a small form or JSON document.
const maxRequestBody = 64 << 10

// registration is what a client sends to register (RFC 7591 §2); other
// fields are ignored.
type registration struct {
	RedirectURIs []string `json:"redirect_uris"`
	Name         string   `json:"client_name"`
	URI          string   `json:"client_uri"`
	AuthMethod   string   `json:"token_endpoint_auth_method"`
	GrantTypes   []string `json:"grant_types"`
	Responses    []string `json:"response_types"`
}

// register is the Dynamic Client Registration endpoint (RFC 7591): open
// to anyone, as the MCP spec has it, since a registration grants nothing
// by itself; a person still signs in and consents. Rate-limited per
// address, and bounded in number (maxClients).
func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		oauthError(w, http.StatusMethodNotAllowed, "invalid_request", "registration is a POST of the client's metadata as JSON")
		return
	}
	if ok, wait := s.registrations.allow(s.clientAddr(r), time.Now()); !ok {
		w.Header().Set("Retry-After", fmt.Sprint(int(wait.Seconds())+1))
		oauthError(w, http.StatusTooManyRequests, "invalid_request", "too many registrations from this address; wait a minute")
		return
	}
	var reg registration
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxRequestBody))
	if err := dec.Decode(&reg); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_client_metadata", "the body is not a JSON object of client metadata: "+err.Error())
		return
	}
	c, err := clientFromMetadata(reg)
	if err != nil {
		code := "invalid_client_metadata"
		if strings.HasPrefix(err.Error(), "redirect_uris") {
			code = "invalid_redirect_uri"
		}
		oauthError(w, http.StatusBadRequest, code, err.Error())
		return
	}
	secret, err := s.clients.register(c)
	if err != nil {
		oauthError(w, http.StatusServiceUnavailable, "temporarily_unavailable", err.Error())
		return
	}
	out := map[string]any{
		"client_id":                  c.ID,
		"client_id_issued_at":        c.Registered.Unix(),
		"redirect_uris":              c.Redirects,
		"token_endpoint_auth_method": c.Method,
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
	}
	if c.Name != "" {
		out["client_name"] = c.Name
	}
	if c.URI != "" {
		out["client_uri"] = c.URI
	}
	if secret != "" {
		out["client_secret"] = secret
		out["client_secret_expires_at"] = 0
	}
	writeJSON(w, http.StatusCreated, out)
}

// clientFromMetadata checks registration metadata (DCR or a Client ID
// Metadata Document) and makes the client it describes.
func clientFromMetadata(reg registration) (*client, error) {
	if err := checkRedirects(reg.RedirectURIs); err != nil {
		return nil, err
	}
	method := reg.AuthMethod
	switch method {
	case "":
		method = "client_secret_basic" // RFC 7591's default
	case "none", "client_secret_basic", "client_secret_post":
	default:
		return nil, fmt.Errorf("token_endpoint_auth_method: %q is not supported (none, client_secret_basic or client_secret_post)", method)
	}
	for _, g := range reg.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			return nil, fmt.Errorf("grant_types: %q is not supported (authorization_code, refresh_token)", g)
		}
	}
	for _, t := range reg.Responses {
		if t != "code" {
			return nil, fmt.Errorf("response_types: %q is not supported (code)", t)
		}
	}
	if len(reg.Name) > 200 || len(reg.URI) > 2000 {
		return nil, fmt.Errorf("client_name or client_uri: too long")
	}
	return &client{Name: cleanText(reg.Name), URI: reg.URI, Redirects: reg.RedirectURIs, Method: method}, nil
}

// cleanText drops control characters from text a client chose, which the
// consent page and the command line show.
func cleanText(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x202e || r == 0x202d {
			return -1
		}
		return r
	}, strings.TrimSpace(s))
}

// oauthError answers an OAuth error (RFC 6749 §5.2).
func oauthError(w http.ResponseWriter, status int, code, desc string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": desc})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
