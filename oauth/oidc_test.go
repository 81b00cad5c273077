package oauth

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/mcptools"
	"github.com/cairn-dev/cairn/vault"
	"github.com/zitadel/oidc/v3/example/server/exampleop"
	opstorage "github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// provider starts a real OpenID provider on loopback: zitadel/oidc's own
// example server (its op package, users and login form), with cairn as a
// registered web client. Its users are test-user@127.0.0.1 (email
// test-user@zitadel.ch) and test-user2 (test-user2@zitadel.ch), password
// "verysecure".
func provider(t *testing.T, cairnURL string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	issuer := "http://" + ln.Addr().String()
	opstorage.RegisterClients(opstorage.WebClient("cairn", "cairn-secret", cairnURL+pathOIDCCallback))
	router := exampleop.SetupServer(issuer, opstorage.NewStorage(opstorage.NewUserStore(issuer)), slog.New(slog.NewTextHandler(io.Discard, nil)), false, op.WithAllowInsecure())
	srv := &http.Server{Handler: router}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return issuer
}

// oidcHarness is the harness with sign-in delegated to a provider; the
// access file maps test-user@zitadel.ch to the owner.
func oidcHarness(t *testing.T) *harness {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // the harness listens again on this address
	issuer := provider(t, "http://"+addr)
	return newHarnessAt(t, addr, Options{OIDC: &OIDCOptions{Issuer: issuer, ClientID: "cairn", ClientSecret: "cairn-secret"}}, func(dir, owner string) {
		f := filepath.Join(dir, vault.AccessFile)
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, []byte("signin:\n  principals:\n    Test-User@zitadel.ch: "+owner+"\n")...)
		if err := os.WriteFile(f, data, 0o644); err != nil {
			t.Fatal(err)
		}
	})
}

// signInAtProvider follows the redirects from the consent page's post
// through the provider's login form (as username, password) back to
// cairn and on to the client, and returns the last redirect, or the page
// where it stopped.
func (h *harness) signInAtProvider(form url.Values, username, password string) (*url.URL, int, string) {
	h.t.Helper()
	form.Set("access", ScopeWrite)
	form.Set("toolset", mcptools.ToolsetGateway)
	form.Set("action", "allow")
	status, loc, body := h.postForm(h.url+pathConsent, form)
	for range 10 {
		if status/100 != 3 {
			return nil, status, body
		}
		u, err := url.Parse(loc)
		if err != nil {
			h.t.Fatal(err)
		}
		if strings.HasPrefix(loc, goodRedirect) {
			return u, status, ""
		}
		if !u.IsAbs() {
			u = h.lastBase.ResolveReference(u)
		}
		if strings.HasSuffix(u.Path, "/login/username") {
			id := u.Query().Get("authRequestID")
			status, loc, body = h.postForm(u.Scheme+"://"+u.Host+"/login/username", url.Values{"username": {username}, "password": {password}, "id": {id}})
			h.lastBase = u
			continue
		}
		h.lastBase = u
		status, loc, body = h.get(u.String())
	}
	h.t.Fatal("too many redirects")
	return nil, 0, ""
}

// Sign-in through the team's provider: no password in cairn; the
// provider's answer (its email claim) maps to the owner, whose grant then
// writes as the owner.
func TestSignInThroughTheTeamsProvider(t *testing.T) {
	h := oidcHarness(t)
	id := h.register(goodRedirect)
	verifier, challenge := pkce()
	link := h.authorizeURL(id, goodRedirect, challenge, h.url+"/mcp", "st4te")
	form := h.consentForm(link)
	_, _, page := h.get(h.url + pathConsent + "?id=" + form.Get("id"))
	if strings.Contains(page, `name="password"`) || !strings.Contains(page, "You will sign in at") {
		t.Fatalf("the consent page asks a password while a provider signs people in:\n%s", page)
	}
	back, status, body := h.signInAtProvider(form, "test-user@127.0.0.1", "verysecure")
	if back == nil || back.Query().Get("code") == "" || back.Query().Get("iss") != h.url {
		t.Fatalf("the sign-in did not come back with a code: %d %s %.500s", status, back, body)
	}
	st, tr := h.token(url.Values{"grant_type": {"authorization_code"}, "code": {back.Query().Get("code")}, "redirect_uri": {goodRedirect},
		"client_id": {id}, "code_verifier": {verifier}})
	if st != http.StatusOK {
		t.Fatalf("exchange: %d %+v", st, tr)
	}
	recs, _ := h.tokens.List()
	if len(recs) != 1 || recs[0].Principal != h.owner {
		t.Fatalf("the grant: %+v", recs)
	}
	if _, err := h.mcpClient("/mcp", tr.Access); err != nil {
		t.Fatal(err)
	}
}

// A person the provider knows but the vault does not map gets a page
// saying so, and no code.
func TestAProviderUserNotMappedGetsNoGrant(t *testing.T) {
	h := oidcHarness(t)
	id := h.register(goodRedirect)
	_, challenge := pkce()
	form := h.consentForm(h.authorizeURL(id, goodRedirect, challenge, h.url+"/mcp", "s"))
	back, status, body := h.signInAtProvider(form, "test-user2", "verysecure")
	if back != nil || status != http.StatusForbidden || !regexp.MustCompile(`test-user2@zitadel.ch, which no principal`).MatchString(body) {
		t.Fatalf("an unmapped person: %v %d %.500s", back, status, body)
	}
	if recs, _ := h.tokens.List(); len(recs) != 0 {
		t.Fatalf("grants: %+v", recs)
	}
}

// The provider's redirect back completes only the sign-in approved in the
// same browser: someone who approved their own client cannot have another
// person finish it by opening the provider's link.
func TestAProviderSignInIsBoundToTheBrowserThatApproved(t *testing.T) {
	h := oidcHarness(t)
	id := h.register(goodRedirect)
	_, challenge := pkce()
	form := h.consentForm(h.authorizeURL(id, goodRedirect, challenge, h.url+"/mcp", "s"))
	form.Set("access", ScopeWrite)
	form.Set("toolset", mcptools.ToolsetGateway)
	form.Set("action", "allow")
	status, toProvider, _ := h.postForm(h.url+pathConsent, form)
	if status != http.StatusSeeOther {
		t.Fatalf("approve: %d", status)
	}
	// The person's browser: their own cookies, none of the approver's.
	jar, _ := cookiejar.New(nil)
	victim := &harness{t: t, url: h.url, browser: &http.Client{Jar: jar, CheckRedirect: h.browser.CheckRedirect}}
	victim.lastBase, _ = url.Parse(toProvider)
	status, loc, body := victim.get(toProvider)
	for i := 0; i < 10 && status/100 == 3 && !strings.HasPrefix(loc, goodRedirect); i++ {
		u, _ := url.Parse(loc)
		if !u.IsAbs() {
			u = victim.lastBase.ResolveReference(u)
		}
		victim.lastBase = u
		if strings.HasSuffix(u.Path, "/login/username") {
			status, loc, body = victim.postForm(u.Scheme+"://"+u.Host+"/login/username",
				url.Values{"username": {"test-user@127.0.0.1"}, "password": {"verysecure"}, "id": {u.Query().Get("authRequestID")}})
			continue
		}
		status, loc, body = victim.get(u.String())
	}
	if strings.HasPrefix(loc, goodRedirect) || status != http.StatusForbidden || !strings.Contains(body, "started in another browser") {
		t.Fatalf("another browser finished the sign-in: %d %s %.300s", status, loc, body)
	}
	if recs, _ := h.tokens.List(); len(recs) != 0 {
		t.Fatalf("grants: %+v", recs)
	}
}
