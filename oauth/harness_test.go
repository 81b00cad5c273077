package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
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
	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"golang.org/x/crypto/bcrypt"
)

// harness is a vault served over HTTP on loopback with the authorization
// server beside MCP, as cairn serve --http --public-url serves it, and a
// browser-like HTTP client (cookies, redirects not followed).
type harness struct {
	t        *testing.T
	url      string // the public URL
	dir      string
	v        *vault.Vault
	as       *Server
	tokens   *mcptools.TokenStore
	owner    string
	password string
	browser  *http.Client
	lastBase *url.URL // the page a relative redirect is from (signInAtProvider)
}

const testPassword = "correct horse battery staple"

// The tests sign in dozens of times; under the race detector a bcrypt
// check at the real cost takes seconds. The cost is the only change: the
// hashing, the file and the checks are the real ones.
func TestMain(m *testing.M) {
	passwordCost = bcrypt.MinCost
	os.Exit(m.Run())
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	return newHarnessWith(t, Options{AllowPrivateDocuments: true})
}

// newHarnessWith serves with these options (Root, PublicURL, Resources
// and Tokens are the harness's).
func newHarnessWith(t *testing.T, o Options) *harness {
	t.Helper()
	return newHarnessAt(t, "127.0.0.1:0", o, nil)
}

// newHarnessAt serves at addr; prepare, when given, sees the vault's
// folder and owner before the server starts.
func newHarnessAt(t *testing.T, addr string, o Options, prepare func(dir, owner string)) *harness {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "vault")
	if _, err := vault.Init(dir, vault.InitOptions{From: "../sample-vault"}); err != nil {
		t.Fatal(err)
	}
	v, err := vault.Open(dir, vault.Options{Exclusive: true})
	if err != nil {
		t.Fatal(err)
	}
	owner, err := vault.ReadOwner(dir)
	if err != nil {
		t.Fatal(err)
	}
	if prepare != nil {
		prepare(dir, owner)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, url: "http://" + ln.Addr().String(), dir: dir, v: v, owner: owner, password: testPassword, tokens: mcptools.NewTokenStore(dir)}
	o.Root, o.PublicURL, o.Resources, o.Tokens = dir, h.url, mcptools.Paths(), h.tokens
	h.as, err = New(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := SetPassword(dir, owner, testPassword); err != nil {
		t.Fatal(err)
	}
	svc := mcptools.NewHTTPService(mcptools.NewServer(v, mcptools.NewRegistry(), "test"), h.tokens, mcptools.HTTPOptions{OAuth: h.as, Addr: ln.Addr().String()})
	h.as.Register(svc.Mux())
	hs := &http.Server{Handler: svc}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close(); svc.Close(); v.Close() })
	jar, _ := cookiejar.New(nil)
	h.browser = &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return h
}

// do sends a request and returns the status, the Location and the body.
func (h *harness) do(req *http.Request) (int, string, string) {
	h.t.Helper()
	resp, err := h.browser.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Location"), string(b)
}

func (h *harness) get(u string) (int, string, string) {
	h.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	return h.do(req)
}

func (h *harness) postForm(u string, form url.Values) (int, string, string) {
	h.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return h.do(req)
}

// register registers a public client by DCR.
func (h *harness) register(redirects ...string) string {
	h.t.Helper()
	body, _ := json.Marshal(map[string]any{"redirect_uris": redirects, "client_name": "Test App", "token_endpoint_auth_method": "none"})
	req, _ := http.NewRequest(http.MethodPost, h.url+pathRegister, strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	status, _, out := h.do(req)
	if status != http.StatusCreated {
		h.t.Fatalf("register: %d %s", status, out)
	}
	var got struct {
		ClientID string `json:"client_id"`
	}
	json.Unmarshal([]byte(out), &got)
	return got.ClientID
}

// pkce is a verifier and its S256 challenge.
func pkce() (verifier, challenge string) {
	verifier = randomID(32)
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

// authorizeURL is the /authorize link a client sends the person to.
func (h *harness) authorizeURL(clientID, redirect, challenge, resource, state string) string {
	q := url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {redirect},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "state": {state}, "scope": {"read write"}}
	if resource != "" {
		q.Set("resource", resource)
	}
	return h.url + pathAuthorize + "?" + q.Encode()
}

var hidden = regexp.MustCompile(`name="(id|csrf)" value="([^"]*)"`)

// consentForm opens the consent page a sign-in link leads to and returns
// its hidden fields.
func (h *harness) consentForm(link string) url.Values {
	h.t.Helper()
	status, loc, body := h.get(link)
	if status != http.StatusFound && status != http.StatusSeeOther {
		h.t.Fatalf("authorize: %d %s", status, body)
	}
	if !strings.HasPrefix(loc, h.url+pathConsent) {
		h.t.Fatalf("authorize led to %s, not the consent page", loc)
	}
	status, _, body = h.get(loc)
	if status != http.StatusOK {
		h.t.Fatalf("consent page: %d %s", status, body)
	}
	form := url.Values{}
	for _, m := range hidden.FindAllStringSubmatch(body, -1) {
		form.Set(m[1], m[2])
	}
	if form.Get("id") == "" || form.Get("csrf") == "" {
		h.t.Fatalf("consent page without its fields:\n%s", body)
	}
	return form
}

// approve signs in and approves, and returns the redirect to the client.
func (h *harness) approve(form url.Values, access string, toolsets ...string) *url.URL {
	h.t.Helper()
	form.Set("principal", h.owner)
	form.Set("password", h.password)
	form.Set("access", access)
	form["toolset"] = toolsets
	form.Set("action", "allow")
	status, loc, body := h.postForm(h.url+pathConsent, form)
	if status != http.StatusSeeOther {
		h.t.Fatalf("approve: %d %s", status, body)
	}
	status, loc, body = h.get(loc)
	if status != http.StatusFound && status != http.StatusSeeOther {
		h.t.Fatalf("callback: %d %s", status, body)
	}
	u, err := url.Parse(loc)
	if err != nil {
		h.t.Fatal(err)
	}
	return u
}

// tokenResponse is the token endpoint's answer.
type tokenResponse struct {
	Access  string `json:"access_token"`
	Refresh string `json:"refresh_token"`
	Type    string `json:"token_type"`
	Expires int    `json:"expires_in"`
	Error   string `json:"error"`
	Desc    string `json:"error_description"`
}

func (h *harness) token(form url.Values) (int, tokenResponse) {
	h.t.Helper()
	status, _, body := h.postForm(h.url+pathToken, form)
	var tr tokenResponse
	if err := json.Unmarshal([]byte(body), &tr); err != nil {
		h.t.Fatalf("token: %d %s", status, body)
	}
	return status, tr
}

// signIn runs the whole flow for a new public client and returns its
// tokens, client id and redirect.
func (h *harness) signIn(access, resource string, toolsets ...string) (tokenResponse, string) {
	h.t.Helper()
	redirect := "http://127.0.0.1:9/callback"
	clientID := h.register(redirect)
	verifier, challenge := pkce()
	back := h.approve(h.consentForm(h.authorizeURL(clientID, redirect, challenge, resource, "st4te")), access, toolsets...)
	code := back.Query().Get("code")
	if code == "" || back.Query().Get("state") != "st4te" || back.Query().Get("iss") != h.url || !strings.HasPrefix(back.String(), redirect+"?") {
		h.t.Fatalf("the redirect back to the client (code, its state, iss): %s", back)
	}
	status, tr := h.token(url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect},
		"client_id": {clientID}, "code_verifier": {verifier}, "resource": {resource}})
	if status != http.StatusOK || tr.Access == "" || tr.Refresh == "" {
		h.t.Fatalf("exchange: %d %+v", status, tr)
	}
	return tr, clientID
}

// mcpClient connects to an MCP endpoint with a bearer token, at the
// latest protocol revision (2026-07-28: stateless, no session).
func (h *harness) mcpClient(path, token string) (*mcpclient.Client, error) {
	return h.mcpClientAt(path, token, mcp.LATEST_PROTOCOL_VERSION)
}

// mcpClientAt connects at the given protocol revision.
func (h *harness) mcpClientAt(path, token, version string) (*mcpclient.Client, error) {
	c, err := mcpclient.NewStreamableHttpClient(h.url+path, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = version
	init.Params.ClientInfo = mcp.Implementation{Name: "oauth-test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		c.Close()
		return nil, err
	}
	h.t.Cleanup(func() { c.Close() })
	return c, nil
}
