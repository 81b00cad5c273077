package oauth

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// ClientsFile holds the clients registered by Dynamic Client Registration:
// their metadata and, for a confidential client, its secret's hash.
const ClientsFile = ".cairn/secrets/oauth-clients.json"

// client is a registered or fetched client, as op.Client.
type client struct {
	ID           string    `json:"clientId"`
	Name         string    `json:"clientName,omitempty"`
	URI          string    `json:"clientUri,omitempty"`
	Redirects    []string  `json:"redirectUris"`
	Method       string    `json:"tokenEndpointAuthMethod"` // none, client_secret_basic, client_secret_post
	SecretHash   string    `json:"secretHash,omitempty"`
	Registered   time.Time `json:"registered"`
	fromDocument bool      // a Client ID Metadata Document
	loginURL     func(id string) string
}

// maxRedirects bounds a client's redirect URIs; maxClients the clients
// DCR may register (each is a line in a file read at every call).
const (
	maxRedirects = 10
	maxClients   = 10000
)

func (c *client) GetID() string                    { return c.ID }
func (c *client) RedirectURIs() []string           { return c.Redirects }
func (c *client) PostLogoutRedirectURIs() []string { return nil }
func (c *client) ApplicationType() op.ApplicationType {
	// A client whose every redirect goes to this machine or to an app's
	// own scheme is an app on a device: any loopback port is its own
	// (RFC 8252), as native clients pick a free port each time.
	for _, r := range c.Redirects {
		if strings.HasPrefix(r, "https://") {
			if _, loop := op.HTTPLoopbackOrLocalhost(r); !loop {
				return op.ApplicationTypeWeb
			}
		}
	}
	return op.ApplicationTypeNative
}
func (c *client) AuthMethod() oidc.AuthMethod {
	switch c.Method {
	case "client_secret_basic":
		return oidc.AuthMethodBasic
	case "client_secret_post":
		return oidc.AuthMethodPost
	}
	return oidc.AuthMethodNone
}
func (c *client) ResponseTypes() []oidc.ResponseType {
	return []oidc.ResponseType{oidc.ResponseTypeCode}
}
func (c *client) GrantTypes() []oidc.GrantType {
	return []oidc.GrantType{oidc.GrantTypeCode, oidc.GrantTypeRefreshToken}
}
func (c *client) LoginURL(id string) string           { return c.loginURL(id) }
func (c *client) AccessTokenType() op.AccessTokenType { return op.AccessTokenTypeBearer }
func (c *client) IDTokenLifetime() time.Duration      { return 5 * time.Minute }
func (c *client) DevMode() bool                       { return false }
func (c *client) RestrictAdditionalIdTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
func (c *client) RestrictAdditionalAccessTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
func (c *client) IsScopeAllowed(scope string) bool     { return scope == ScopeRead || scope == ScopeWrite }
func (c *client) IDTokenUserinfoClaimsAssertion() bool { return false }
func (c *client) ClockSkew() time.Duration             { return 0 }

// label is how the consent page and `cairn token list` name the client:
// its name, and where its document or redirect lives.
func (c *client) label() string {
	name := c.Name
	if name == "" {
		name = "an unnamed client"
	}
	return name
}

// clientStore keeps the registered clients in ClientsFile.
type clientStore struct {
	file string
	mu   sync.Mutex
	byID map[string]*client
}

func openClients(root string) (*clientStore, error) {
	s := &clientStore{file: filepath.Join(root, ClientsFile), byID: map[string]*client{}}
	data, err := os.ReadFile(s.file)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("oauth clients: %w", err)
	}
	var list []*client
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, fmt.Errorf("oauth clients: %s: %w", s.file, err)
	}
	for _, c := range list {
		s.byID[c.ID] = c
	}
	return s, nil
}

func (s *clientStore) get(id string) (*client, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.byID[id]
	if !ok {
		return nil, false
	}
	cp := *c
	return &cp, true
}

// register adds a client and returns it with its secret ("" for a public
// client), shown once.
func (s *clientStore) register(c *client) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.byID) >= maxClients {
		return "", errors.New("this server holds as many registered clients as it takes; its owner can remove unused ones from " + ClientsFile)
	}
	c.ID = "cairn_client_" + randomID(12)
	c.Registered = time.Now().UTC().Truncate(time.Second)
	secret := ""
	if c.Method != "none" {
		secret = "cairn_secret_" + randomID(20)
		sum := sha256.Sum256([]byte(secret))
		c.SecretHash = hex.EncodeToString(sum[:])
	}
	s.byID[c.ID] = c
	if err := s.saveLocked(); err != nil {
		delete(s.byID, c.ID)
		return "", err
	}
	return secret, nil
}

func (s *clientStore) saveLocked() error {
	list := make([]*client, 0, len(s.byID))
	for _, c := range s.byID {
		list = append(list, c)
	}
	slices.SortFunc(list, func(a, b *client) int { return strings.Compare(a.ID, b.ID) })
	data, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.file), 0o700); err != nil {
		return err
	}
	return gitstore.WriteFileAtomic(s.file, data, 0o600)
}

// checkSecret compares a presented client secret with the stored hash.
func (c *client) checkSecret(secret string) bool {
	if c.SecretHash == "" || secret == "" {
		return false
	}
	sum := sha256.Sum256([]byte(secret))
	return subtle.ConstantTimeCompare([]byte(hex.EncodeToString(sum[:])), []byte(c.SecretHash)) == 1
}

// checkRedirects validates a client's redirect URIs (DCR or a document):
// absolute, no fragment, https or a loopback http, or an app's own scheme;
// never javascript:, data: or file:.
func checkRedirects(uris []string) error {
	if len(uris) == 0 {
		return errors.New("redirect_uris: at least one is needed")
	}
	if len(uris) > maxRedirects {
		return fmt.Errorf("redirect_uris: %d given, at most %d", len(uris), maxRedirects)
	}
	for _, r := range uris {
		u, err := url.Parse(r)
		if err != nil || !u.IsAbs() || len(r) > 2000 {
			return fmt.Errorf("redirect_uris: %q is not an absolute URI", r)
		}
		if u.Fragment != "" || strings.Contains(r, "#") {
			return fmt.Errorf("redirect_uris: %q has a fragment", r)
		}
		switch scheme := strings.ToLower(u.Scheme); scheme {
		case "https":
			if u.Host == "" {
				return fmt.Errorf("redirect_uris: %q has no host", r)
			}
		case "http":
			if _, loop := op.HTTPLoopbackOrLocalhost(r); !loop {
				return fmt.Errorf("redirect_uris: %q: plain http is for this machine only (127.0.0.1, [::1] or localhost); use https", r)
			}
		case "javascript", "data", "file", "vbscript", "about", "blob":
			return fmt.Errorf("redirect_uris: %q: the %s: scheme is not a redirect", r, scheme)
		default:
			// An app's own scheme (RFC 8252 §7.1), e.g. cursor://…: a
			// reverse domain name is advised, not required.
		}
	}
	return nil
}

var b32 = base32.StdEncoding.WithPadding(base32.NoPadding)

// randomID is n random bytes in lower-case base32.
func randomID(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return strings.ToLower(b32.EncodeToString(b))
}
