package main

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// cairn on the internet as docs/examples/Caddyfile has it: Caddy in front
// with TLS, cairn on loopback with --public-url and --trust-proxy. The
// example file is used as it is, behind the test's global options (no
// admin endpoint, Caddy's own local CA, nothing installed in the system's
// trust). Through Caddy: the metadata names the public URL, a bare call
// gets 401 (not the DNS-rebinding 403 a proxied Host would get without
// --public-url), a client registers, a person signs in on the consent
// page, the code is exchanged and the access token initializes MCP. A
// direct connection naming another Host is refused.
func TestBehindCaddyAsDocumented(t *testing.T) {
	caddy, err := exec.LookPath("caddy")
	if err != nil {
		t.Fatal("caddy is missing: this test runs docs/examples/Caddyfile (Debian: apt-get install caddy; .ci/run installs it)")
	}
	v := filepath.Join(t.TempDir(), "v")
	run(t, true, "init", "--from", "../../sample-vault", "--owner", "me", v)
	pw := exec.Command(bin, "password", "set", "me", "--vault", v)
	pw.Stdin = strings.NewReader("a long enough password\n")
	if out, err := pw.CombinedOutput(); err != nil {
		t.Fatalf("password set: %v\n%s", err, out)
	}
	front := freeAddr(t)
	public := "https://" + front
	serve := exec.Command(bin, "serve", "--vault", v, "--http", "127.0.0.1:0", "--no-watch", "--public-url", public, "--trust-proxy")
	upstream := startedAt(t, serve)

	dir := t.TempDir()
	example, err := os.ReadFile("../../docs/examples/Caddyfile")
	if err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, "Caddyfile")
	globals := "{\n\tadmin off\n\tskip_install_trust\n\tlocal_certs\n\tauto_https disable_redirects\n}\n\n"
	if err := os.WriteFile(config, append([]byte(globals), example...), 0o644); err != nil {
		t.Fatal(err)
	}
	proxy := exec.Command(caddy, "run", "--config", config, "--adapter", "caddyfile")
	proxy.Env = append(os.Environ(), "CAIRN_HOST="+front, "CAIRN_UPSTREAM="+upstream, "XDG_DATA_HOME="+filepath.Join(dir, "data"),
		"XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "HOME="+dir)
	var proxyLog syncBuffer
	proxy.Stdout, proxy.Stderr = &proxyLog, &proxyLog
	if err := proxy.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- proxy.Wait() }()
	defer func() { proxy.Process.Kill(); <-exited }()
	root := filepath.Join(dir, "data", "caddy", "pki", "authorities", "local", "root.crt")
	pool := x509.NewCertPool()
	for deadline := time.Now().Add(30 * time.Second); ; {
		if pem, err := os.ReadFile(root); err == nil && pool.AppendCertsFromPEM(pem) {
			if c, err := tls.Dial("tcp", front, &tls.Config{RootCAs: pool}); err == nil {
				c.Close()
				break
			}
		}
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("caddy exited (%v):\n%s", err, proxyLog.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("caddy did not serve %s with its local CA within 30 s:\n%s", front, proxyLog.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	do := func(method, u, ctype, body string, header ...string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(method, u, strings.NewReader(body))
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := browser.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, u, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(b)
	}

	resp, body := do("GET", public+"/.well-known/oauth-protected-resource/mcp", "", "")
	if resp.StatusCode != 200 || !strings.Contains(body, `"resource":"`+public+`/mcp"`) {
		t.Fatalf("resource metadata through caddy: %d %s", resp.StatusCode, body)
	}
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	resp, body = do("POST", public+"/mcp", "application/json", init, "Accept", "application/json, text/event-stream")
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), public+"/.well-known/oauth-protected-resource/mcp") {
		t.Fatalf("a bare call through caddy: %d %v %s", resp.StatusCode, resp.Header, body)
	}

	redirect := "http://127.0.0.1:9/callback"
	resp, body = do("POST", public+"/oauth/register", "application/json", `{"redirect_uris":["`+redirect+`"],"client_name":"Phone","token_endpoint_auth_method":"none"}`)
	var reg struct {
		ClientID string `json:"client_id"`
	}
	if json.Unmarshal([]byte(body), &reg); resp.StatusCode != http.StatusCreated || reg.ClientID == "" {
		t.Fatalf("register: %d %s", resp.StatusCode, body)
	}
	verifier := strings.Repeat("v", 50)
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{"response_type": {"code"}, "client_id": {reg.ClientID}, "redirect_uri": {redirect}, "state": {"s"}, "resource": {public + "/mcp"},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"}}
	resp, _ = do("GET", public+"/authorize?"+q.Encode(), "", "")
	consent := resp.Header.Get("Location")
	if !strings.HasPrefix(consent, public+"/oauth/consent?") {
		t.Fatalf("authorize: %d, Location %q", resp.StatusCode, consent)
	}
	_, page := do("GET", consent, "", "")
	form := url.Values{"principal": {"me"}, "password": {"a long enough password"}, "access": {"write"}, "toolset": {"gateway"}, "action": {"allow"}}
	for _, m := range regexp.MustCompile(`name="(id|csrf)" value="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		form.Set(m[1], m[2])
	}
	resp, body = do("POST", public+"/oauth/consent", "application/x-www-form-urlencoded", form.Encode())
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("consent through caddy: %d %s", resp.StatusCode, body)
	}
	resp, _ = do("GET", resp.Header.Get("Location"), "", "")
	back, _ := url.Parse(resp.Header.Get("Location"))
	if back == nil || back.Query().Get("code") == "" || back.Query().Get("iss") != public {
		t.Fatalf("callback: %d %v", resp.StatusCode, resp.Header)
	}
	resp, body = do("POST", public+"/oauth/token", "application/x-www-form-urlencoded", url.Values{"grant_type": {"authorization_code"},
		"code": {back.Query().Get("code")}, "redirect_uri": {redirect}, "client_id": {reg.ClientID}, "code_verifier": {verifier}}.Encode())
	var tok struct {
		Access string `json:"access_token"`
	}
	if json.Unmarshal([]byte(body), &tok); resp.StatusCode != 200 || tok.Access == "" {
		t.Fatalf("exchange: %d %s", resp.StatusCode, body)
	}
	resp, body = do("POST", public+"/mcp", "application/json", init, "Accept", "application/json, text/event-stream", "Authorization", "Bearer "+tok.Access)
	if resp.StatusCode != 200 || !strings.Contains(body, `"serverInfo"`) {
		t.Fatalf("initialize through caddy with the access token: %d %s", resp.StatusCode, body)
	}

	// Straight to cairn, a name that is neither loopback nor the public
	// one is refused (DNS-rebinding protection).
	req, _ := http.NewRequest("POST", "http://"+upstream+"/mcp", strings.NewReader(init))
	req.Host = "evil.example"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+tok.Access)
	direct, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	direct.Body.Close()
	if direct.StatusCode != http.StatusForbidden {
		t.Fatalf("Host evil.example straight to cairn: %d", direct.StatusCode)
	}
}

// startedAt starts cairn serve --http and returns the address it serves.
func startedAt(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	cmd.Env = append(os.Environ(), "CAIRN_VAULT=")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	lines := bufio.NewReader(stderr)
	serving := regexp.MustCompile(`at https?://(\S+)/mcp`)
	for {
		line, err := lines.ReadString('\n')
		if err != nil {
			t.Fatalf("serve ended before serving: %v", err)
		}
		if m := serving.FindStringSubmatch(line); m != nil {
			go io.Copy(io.Discard, lines)
			return m[1]
		}
	}
}

// cairn serving TLS itself (--tls-cert, --tls-key): the sign-in's
// metadata and a bare call's 401 over HTTPS; a wrong file or half a pair
// is refused at start, naming the flags.
func TestServeTLSItself(t *testing.T) {
	v := filepath.Join(t.TempDir(), "v")
	run(t, true, "init", v)
	dir := t.TempDir()
	certFile, keyFile, pool := selfSigned(t, dir)
	addr := freeAddr(t)
	public := "https://" + addr
	upstream := startedAt(t, exec.Command(bin, "serve", "--vault", v, "--http", addr, "--no-watch", "--public-url", public,
		"--tls-cert", certFile, "--tls-key", keyFile))
	if upstream != addr {
		t.Fatalf("serving %s, asked %s", upstream, addr)
	}
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := c.Get(public + "/.well-known/oauth-authorization-server")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"issuer":"`+public+`"`) {
		t.Fatalf("metadata over TLS: %d %s", resp.StatusCode, b)
	}
	resp, err = c.Post(public+"/mcp", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a bare call over TLS: %d", resp.StatusCode)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--tls-cert", certFile}, "--tls-cert and --tls-key go together"},
		{[]string{"--tls-cert", keyFile, "--tls-key", keyFile}, "--tls-cert " + keyFile},
		{[]string{"--tls-cert", filepath.Join(dir, "none.pem"), "--tls-key", keyFile}, "none.pem"},
	} {
		args := append([]string{"serve", "--vault", v, "--http", "127.0.0.1:0"}, c.args...)
		if _, stderr := run(t, false, args...); !strings.Contains(stderr, c.want) {
			t.Errorf("%v: %s", c.args, stderr)
		}
	}
}

// selfSigned writes a certificate for 127.0.0.1 and its key, and returns
// a pool that trusts it.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalPKCS8PrivateKey(key)
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}), 0o600)
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}
