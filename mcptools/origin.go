package mcptools

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
)

// originPolicy decides which browser pages may talk to the server. The MCP
// Streamable HTTP transport says servers MUST validate Origin against DNS
// rebinding: a page at http://evil.example:8787 whose name is rebound to
// 127.0.0.1 is same-origin in the victim's browser, so CORS never stops it;
// its Origin header still names evil.example. Accepted:
//   - no Origin at all (not a browser: agents, CLIs, SDKs);
//   - a loopback origin (localhost, 127.0.0.0/8, ::1), any port: a page
//     the machine itself serves, which a rebinding attacker cannot forge;
//   - an origin whose host is the server's own: the host of --http, or the
//     address the connection arrived on (a page opened by the server's IP);
//   - an origin on the allow-list (--allow-origin), which alone also gets
//     CORS headers, so a browser client elsewhere can read the answers.
//
// Everything else, "null" included, is 403. mcp-go's own check (a loopback
// connection must carry a loopback Host) stays on behind this one.
type originPolicy struct {
	allow      []string // normalized scheme://host[:port]
	serverHost string   // the host of --http, when it names one
	publicHost string   // the host of --public-url, when given (behind a proxy, the name clients use)
}

// ParseOrigin normalizes an --allow-origin value: scheme://host[:port]
// with scheme http or https and nothing after the host, as browsers send
// it. The error says what is wrong with it.
func ParseOrigin(s string) (string, error) {
	if s == "*" {
		return "", fmt.Errorf("%q: list each origin (scheme://host[:port]); a wildcard would let any page reach the vault", s)
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("%q is not an origin (scheme://host[:port]): %w", s, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("%q is not an origin: the scheme must be http or https", s)
	}
	if u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("%q is not an origin: it is scheme://host[:port] with no path, query or user", s)
	}
	return normalOrigin(u), nil
}

// normalOrigin lower-cases scheme and host and drops a default port.
func normalOrigin(u *url.URL) string {
	scheme, host := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname())
	port := u.Port()
	if scheme == "http" && port == "80" || scheme == "https" && port == "443" {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host
}

// check returns whether the request's Origin is accepted, and whether it is
// on the allow-list (which earns CORS headers).
func (p originPolicy) check(r *http.Request) (ok, listed bool) {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true, false
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false, false
	}
	if slices.Contains(p.allow, normalOrigin(u)) {
		return true, true
	}
	host := strings.ToLower(u.Hostname())
	if host == "localhost" || host == p.serverHost && host != "" || host == p.publicHost && host != "" {
		return true, false
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return false, false
	}
	if ip.IsLoopback() {
		return true, false
	}
	if la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		if ap, err := netip.ParseAddrPort(la.String()); err == nil && ap.Addr().Unmap() == ip.Unmap() {
			return true, false
		}
	}
	return false, false
}

// hostAllowed is mcp-go's DNS-rebinding check (a connection to a loopback
// address must carry a loopback Host), which cairn makes itself when it
// has a public name: a reverse proxy on this machine connects over
// loopback and passes the Host clients used, which is then that name.
func (p originPolicy) hostAllowed(r *http.Request) bool {
	la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || la == nil {
		return true
	}
	ap, err := netip.ParseAddrPort(la.String())
	if err != nil || !ap.Addr().Unmap().IsLoopback() {
		return true
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.ToLower(strings.Trim(host, "[]"))
	if host == "localhost" || host == p.publicHost && host != "" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// refusal is the 403's message.
func (p originPolicy) refusal(r *http.Request) string {
	return fmt.Sprintf("Origin %q is not allowed (DNS-rebinding protection): cairn accepts browser pages from loopback, from its own host, and from the origins given with cairn serve --allow-origin", r.Header.Get("Origin"))
}

// cors adds the headers a browser needs to let an allow-listed page read
// the answer, and answers a preflight (OPTIONS), which carries no token.
// It reports whether the request was a preflight and is answered.
func (p originPolicy) cors(w http.ResponseWriter, r *http.Request) bool {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", r.Header.Get("Origin"))
	h.Add("Vary", "Origin")
	h.Set("Access-Control-Expose-Headers", "Mcp-Session-Id, WWW-Authenticate")
	if r.Method != http.MethodOptions || r.Header.Get("Access-Control-Request-Method") == "" {
		return false
	}
	h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE")
	h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID")
	h.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
	return true
}

// serverHostOf is the host an --http address names, lower-cased: "" for an
// unspecified address (0.0.0.0, ::, empty), whose own hosts are unknown.
func serverHostOf(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	host = strings.ToLower(strings.Trim(host, "[]"))
	if ip, err := netip.ParseAddr(host); err == nil && ip.IsUnspecified() {
		return ""
	}
	return host
}

// publicHostOf is the host of a --public-url, lower-cased ("" for none).
func publicHostOf(public string) string {
	u, err := url.Parse(public)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}
