package oauth

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/mcptools"
)

const goodRedirect = "http://127.0.0.1:9/callback"

// A redirect URI the client did not register gets no redirect at all: the
// person sees a page, and no code or error goes to that address.
func TestAnUnregisteredRedirectGetsNoRedirect(t *testing.T) {
	h := newHarness(t)
	id := h.register(goodRedirect)
	_, challenge := pkce()
	for _, evil := range []string{"https://evil.example/cb", "http://127.0.0.1:9/other", "http://127.0.0.1:9/callback/../x", "javascript:alert(1)"} {
		status, loc, _ := h.get(h.authorizeURL(id, evil, challenge, h.url+"/mcp", "s"))
		if status/100 == 3 || loc != "" {
			t.Errorf("redirect_uri %s: %d, Location %q", evil, status, loc)
		}
	}
	// An unknown client: the same.
	status, loc, _ := h.get(h.authorizeURL("cairn_client_nobody", goodRedirect, challenge, h.url+"/mcp", "s"))
	if status/100 == 3 || loc != "" {
		t.Errorf("unknown client: %d, Location %q", status, loc)
	}
}

// PKCE with S256 is required; without it, or with plain, the client gets
// an error at its redirect, and no consent page.
func TestPKCEIsRequired(t *testing.T) {
	h := newHarness(t)
	id := h.register(goodRedirect)
	verifier, challenge := pkce()
	for name, q := range map[string]url.Values{
		"no challenge": {"code_challenge": {""}, "code_challenge_method": {""}},
		"plain":        {"code_challenge": {verifier}, "code_challenge_method": {"plain"}},
	} {
		u, _ := url.Parse(h.authorizeURL(id, goodRedirect, challenge, h.url+"/mcp", "s"))
		v := u.Query()
		for k, val := range q {
			v[k] = val
		}
		u.RawQuery = v.Encode()
		status, loc, body := h.get(u.String())
		back, _ := url.Parse(loc)
		if status/100 != 3 || !strings.HasPrefix(loc, goodRedirect) || back.Query().Get("error") == "" || back.Query().Get("iss") != h.url {
			t.Errorf("%s: %d %s %.200s", name, status, loc, body)
		}
	}
}

// At the token endpoint: a wrong verifier, a redirect_uri other than the
// authorization's, another client, or another resource is refused; a code
// used twice is refused, and the tokens it gave end.
func TestTheCodeExchangeRefusals(t *testing.T) {
	h := newHarness(t)
	id := h.register(goodRedirect)
	other := h.register(goodRedirect)
	verifier, challenge := pkce()
	code := h.approve(h.consentForm(h.authorizeURL(id, goodRedirect, challenge, h.url+"/mcp", "s")), ScopeWrite, mcptools.ToolsetGateway).Query().Get("code")
	base := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {goodRedirect}, "client_id": {id}, "code_verifier": {verifier}}
	for name, change := range map[string]url.Values{
		"wrong verifier":     {"code_verifier": {verifier + "x"}},
		"no verifier":        {"code_verifier": {""}},
		"another redirect":   {"redirect_uri": {"http://127.0.0.1:9/elsewhere"}},
		"another client":     {"client_id": {other}},
		"another resource":   {"resource": {h.url + "/hindsight/mcp"}},
		"a foreign resource": {"resource": {"https://elsewhere.example/mcp"}},
	} {
		form := url.Values{}
		for k, v := range base {
			form[k] = v
		}
		for k, v := range change {
			form[k] = v
		}
		if status, tr := h.token(form); status == http.StatusOK || tr.Access != "" {
			t.Errorf("%s: %d %+v", name, status, tr)
		}
	}
	status, tr := h.token(base)
	if status != http.StatusOK {
		t.Fatalf("the right exchange after the wrong ones: %d %+v", status, tr)
	}
	if status, again := h.token(base); status == http.StatusOK || again.Access != "" {
		t.Fatalf("a code used twice: %d %+v", status, again)
	}
	if _, err := h.mcpClient("/mcp", tr.Access); err == nil {
		t.Fatal("the tokens of a code used twice still work")
	}
}

// A sign-in for another server's resource is refused before anything.
func TestAResourceNotServedHereIsRefused(t *testing.T) {
	h := newHarness(t)
	id := h.register(goodRedirect)
	_, challenge := pkce()
	status, loc, body := h.get(h.authorizeURL(id, goodRedirect, challenge, "https://elsewhere.example/mcp", "s"))
	if status != http.StatusBadRequest || loc != "" || !strings.Contains(body, "invalid_target") {
		t.Fatalf("%d %s %.300s", status, loc, body)
	}
}

// The consent form is bound to the page that showed it: without its
// token, or from a browser without its cookie, it is refused.
func TestTheConsentFormNeedsItsCSRFToken(t *testing.T) {
	h := newHarness(t)
	id := h.register(goodRedirect)
	_, challenge := pkce()
	form := h.consentForm(h.authorizeURL(id, goodRedirect, challenge, h.url+"/mcp", "s"))
	post := func(f url.Values, cookie bool) int {
		f.Set("principal", h.owner)
		f.Set("password", h.password)
		f.Set("access", ScopeWrite)
		f.Set("toolset", mcptools.ToolsetGateway)
		req, _ := http.NewRequest(http.MethodPost, h.url+pathConsent, strings.NewReader(f.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		c := h.browser
		if !cookie {
			c = &http.Client{CheckRedirect: h.browser.CheckRedirect}
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	without := url.Values{"id": {form.Get("id")}}
	if got := post(without, true); got != http.StatusForbidden {
		t.Errorf("no CSRF token: %d", got)
	}
	wrong := url.Values{"id": {form.Get("id")}, "csrf": {strings.Repeat("0", 64)}}
	if got := post(wrong, true); got != http.StatusForbidden {
		t.Errorf("a wrong CSRF token: %d", got)
	}
	copied := url.Values{"id": {form.Get("id")}, "csrf": {form.Get("csrf")}}
	if got := post(copied, false); got != http.StatusForbidden {
		t.Errorf("the token without the browser's cookie: %d", got)
	}
	if got := post(url.Values{"id": {form.Get("id")}, "csrf": {form.Get("csrf")}}, true); got != http.StatusSeeOther {
		t.Errorf("the real form: %d", got)
	}
	// The page cannot be framed.
	req, _ := http.NewRequest(http.MethodGet, h.url+pathConsent+"?id="+form.Get("id"), nil)
	resp, err := h.browser.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("X-Frame-Options") != "DENY" || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Errorf("clickjacking headers: %v", resp.Header)
	}
}

// 100 wrong passwords in a minute: the first few are checked, the rest
// refused unread (429), and so is the right one until the minute passes.
func TestWrongPasswordsAreRateLimited(t *testing.T) {
	h := newHarness(t)
	id := h.register(goodRedirect)
	_, challenge := pkce()
	form := h.consentForm(h.authorizeURL(id, goodRedirect, challenge, h.url+"/mcp", "s"))
	counts := map[int]int{}
	for i := 0; i < 100; i++ {
		f := url.Values{"id": {form.Get("id")}, "csrf": {form.Get("csrf")}, "principal": {h.owner}, "password": {"guess " + strings.Repeat("x", i)},
			"access": {ScopeWrite}, "toolset": {mcptools.ToolsetGateway}}
		status, _, _ := h.postForm(h.url+pathConsent, f)
		counts[status]++
	}
	if counts[http.StatusUnauthorized] > 10 || counts[http.StatusTooManyRequests] < 90 || counts[http.StatusSeeOther] != 0 {
		t.Fatalf("statuses of 100 wrong passwords: %v", counts)
	}
	f := url.Values{"id": {form.Get("id")}, "csrf": {form.Get("csrf")}, "principal": {h.owner}, "password": {h.password},
		"access": {ScopeWrite}, "toolset": {mcptools.ToolsetGateway}}
	if status, _, _ := h.postForm(h.url+pathConsent, f); status != http.StatusTooManyRequests {
		t.Fatalf("the right password during the limit: %d", status)
	}
}

// An access token past its time is refused at once.
func TestAnExpiredAccessTokenIsRefused(t *testing.T) {
	h := newHarness(t)
	tr, _ := h.signIn(ScopeWrite, h.url+"/mcp", mcptools.ToolsetGateway)
	recs, _ := h.tokens.List()
	for _, r := range recs {
		if r.Kind == mcptools.KindOAuth {
			h.tokens.Update(r.ID, func(r *mcptools.TokenRecord) error { r.AccessExpires = time.Now().Add(-time.Second); return nil })
		}
	}
	if _, err := h.mcpClient("/mcp", tr.Access); err == nil {
		t.Fatal("an expired access token works")
	}
}

// Registration refuses what could redirect a code somewhere unsafe, each
// refusal naming the field.
func TestRegistrationRefusesUnsafeRedirects(t *testing.T) {
	h := newHarness(t)
	for _, c := range []struct {
		meta string
		want string
	}{
		{`{"redirect_uris":["javascript:alert(1)"]}`, "invalid_redirect_uri"},
		{`{"redirect_uris":["http://evil.example/cb"]}`, "invalid_redirect_uri"},
		{`{"redirect_uris":["https://app.example/cb#frag"]}`, "invalid_redirect_uri"},
		{`{"redirect_uris":[]}`, "invalid_redirect_uri"},
		{`{"redirect_uris":["https://app.example/cb"],"grant_types":["implicit"]}`, "invalid_client_metadata"},
		{`{"redirect_uris":["https://app.example/cb"],"token_endpoint_auth_method":"private_key_jwt"}`, "invalid_client_metadata"},
		{`not json`, "invalid_client_metadata"},
	} {
		req, _ := http.NewRequest(http.MethodPost, h.url+pathRegister, strings.NewReader(c.meta))
		status, _, body := h.do(req)
		var e struct{ Error string }
		json.Unmarshal([]byte(body), &e)
		if status != http.StatusBadRequest || e.Error != c.want {
			t.Errorf("%s: %d %s", c.meta, status, body)
		}
	}
}

// Personal tokens keep working beside OAuth, and the authorization
// server's endpoints bound what they read, as the MCP endpoints do.
func TestPersonalTokensAndBoundsBesideOAuth(t *testing.T) {
	h := newHarness(t)
	pat, _, err := h.tokens.Create(mcptools.TokenRecord{Principal: h.owner, Scope: ScopeWrite})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.mcpClient("/mcp", pat); err != nil {
		t.Fatalf("a personal token with OAuth on: %v", err)
	}
	big := strings.Repeat("x", maxRequestBody+1)
	for _, path := range []string{pathRegister, pathToken, pathRevoke, pathConsent} {
		req, _ := http.NewRequest(http.MethodPost, h.url+path, strings.NewReader(big))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if status, _, body := h.do(req); status != http.StatusRequestEntityTooLarge {
			t.Errorf("%s with a body over %d bytes: %d %.200s", path, maxRequestBody, status, body)
		}
	}
}
