package oauth

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/mcptools"
)

// docServer serves Client ID Metadata Documents over TLS on loopback:
// /good.json names itself, /liar.json names another URL.
func docServer(t *testing.T) (*httptest.Server, *http.Transport) {
	t.Helper()
	var srv *httptest.Server
	srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := srv.URL + r.URL.Path
		if r.URL.Path == "/liar.json" {
			id = "https://someone-else.example/client.json"
		}
		json.NewEncoder(w).Encode(map[string]any{"client_id": id, "client_name": "Doc App", "redirect_uris": []string{goodRedirect}, "token_endpoint_auth_method": "none"})
	}))
	t.Cleanup(srv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	return srv, &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
}

// A client that publishes its metadata at its client_id URL signs in
// without registering; the consent page names it and where it lives.
func TestAClientIDMetadataDocumentSignsIn(t *testing.T) {
	srv, tr := docServer(t)
	h := newHarnessWith(t, Options{AllowPrivateDocuments: true, DocumentTransport: tr})
	id := srv.URL + "/good.json"
	verifier, challenge := pkce()
	link := h.authorizeURL(id, goodRedirect, challenge, h.url+"/mcp", "st4te")
	_, loc, _ := h.get(link)
	_, _, page := h.get(loc)
	if !strings.Contains(page, "Doc App") || !strings.Contains(page, id) || !strings.Contains(page, "127.0.0.1:9") {
		t.Fatalf("the consent page does not say who asks:\n%s", page)
	}
	back := h.approve(h.consentForm(link), ScopeRead, mcptools.ToolsetGateway)
	status, tok := h.token(url.Values{"grant_type": {"authorization_code"}, "code": {back.Query().Get("code")}, "redirect_uri": {goodRedirect},
		"client_id": {id}, "code_verifier": {verifier}})
	if status != http.StatusOK {
		t.Fatalf("exchange: %d %+v", status, tok)
	}
	if _, err := h.mcpClient("/mcp", tok.Access); err != nil {
		t.Fatal(err)
	}
	recs, _ := h.tokens.List()
	if len(recs) != 1 || recs[0].Client != id || recs[0].ClientName != "Doc App" {
		t.Fatalf("grants: %+v", recs)
	}
}

// A document that names another client_id, or one on a private address
// when the server does not allow those, is no client.
func TestADocumentMustBeItsOwnAndPublic(t *testing.T) {
	srv, tr := docServer(t)
	_, challenge := pkce()
	h := newHarnessWith(t, Options{AllowPrivateDocuments: true, DocumentTransport: tr})
	if status, loc, _ := h.get(h.authorizeURL(srv.URL+"/liar.json", goodRedirect, challenge, h.url+"/mcp", "s")); status/100 == 3 || loc != "" {
		t.Errorf("a document naming another client_id: %d %s", status, loc)
	}
	strict := newHarnessWith(t, Options{DocumentTransport: tr})
	if status, loc, _ := strict.get(strict.authorizeURL(srv.URL+"/good.json", goodRedirect, challenge, strict.url+"/mcp", "s")); status/100 == 3 || loc != "" {
		t.Errorf("a document on a loopback address: %d %s", status, loc)
	}
}
