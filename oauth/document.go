package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"
)

// A Client ID Metadata Document: a client whose client_id is an https URL
// publishes its metadata at that URL, and the authorization server reads
// it there instead of asking it to register (draft-ietf-oauth-client-id-
// metadata-document; MCP 2025-11-25). cairn fetches it with a short
// timeout, a size bound, no redirects, and never from an address on this
// machine or its private network (a client_id chosen by anyone must not
// make the server reach inside it), unless Options.AllowPrivateDocuments
// says so (tests, a private deployment).

const (
	maxDocument   = 64 << 10
	documentTTL   = 10 * time.Minute
	maxDocuments  = 1000
	fetchDeadline = 5 * time.Second
)

// isDocumentID says whether a client_id names a metadata document: an
// https URL with a path.
func isDocumentID(id string) bool {
	u, err := url.Parse(id)
	return err == nil && u.Scheme == "https" && u.Host != "" && u.Path != "" && u.Path != "/" && u.Fragment == "" && u.User == nil
}

type documents struct {
	client *http.Client
	mu     sync.Mutex
	cache  map[string]cachedDocument
}

type cachedDocument struct {
	c   *client
	err error
	at  time.Time
}

func newDocuments(allowPrivate bool, transport *http.Transport) *documents {
	if transport == nil {
		transport = http.DefaultTransport.(*http.Transport)
	}
	// A copy: its dialer is set here, and its pool of connections is its
	// own (a connection another client made is never reused unchecked).
	transport = transport.Clone()
	dialer := &net.Dialer{Timeout: fetchDeadline}
	if !allowPrivate {
		dialer.Control = refusePrivate
	}
	transport.DialContext = dialer.DialContext
	transport.Proxy = nil
	return &documents{
		client: &http.Client{
			Transport: transport,
			Timeout:   fetchDeadline,
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return errors.New("the document redirects; it must be served at its client_id")
			},
		},
		cache: map[string]cachedDocument{},
	}
}

// refusePrivate refuses a connection to an address that is not public,
// checked on the address dialled (so a name that resolves to a public
// address at one lookup and a private one at the next gains nothing).
func refusePrivate(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip := net.ParseIP(host)
	if ip == nil || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsUnspecified() || ip.IsMulticast() || ip.IsInterfaceLocalMulticast() {
		return fmt.Errorf("%s is not a public address", host)
	}
	return nil
}

// get returns the client a document describes, from the cache when it
// was read in the last documentTTL (a failure too, so that a client_id
// cannot make the server fetch on every request).
func (d *documents) get(ctx context.Context, id string) (*client, error) {
	now := time.Now()
	d.mu.Lock()
	if c, ok := d.cache[id]; ok && now.Sub(c.at) < documentTTL {
		d.mu.Unlock()
		if c.err != nil {
			return nil, c.err
		}
		cp := *c.c
		return &cp, nil
	}
	d.mu.Unlock()
	c, err := d.fetch(ctx, id)
	d.mu.Lock()
	if len(d.cache) >= maxDocuments {
		for k, v := range d.cache {
			if now.Sub(v.at) >= documentTTL || len(d.cache) >= maxDocuments {
				delete(d.cache, k)
			}
		}
	}
	d.cache[id] = cachedDocument{c: c, err: err, at: now}
	d.mu.Unlock()
	if err != nil {
		return nil, err
	}
	cp := *c
	return &cp, nil
}

func (d *documents) fetch(ctx context.Context, id string) (*client, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, id, nil)
	if err != nil {
		return nil, fmt.Errorf("client metadata document %s: %w", id, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := d.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("client metadata document %s: %w", id, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("client metadata document %s: HTTP %d", id, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocument+1))
	if err != nil {
		return nil, fmt.Errorf("client metadata document %s: %w", id, err)
	}
	if len(body) > maxDocument {
		return nil, fmt.Errorf("client metadata document %s: over %d bytes", id, maxDocument)
	}
	var doc struct {
		ClientID string `json:"client_id"`
		registration
		Secret string `json:"client_secret"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("client metadata document %s: not JSON: %w", id, err)
	}
	if doc.ClientID != id {
		return nil, fmt.Errorf("client metadata document %s: its client_id is %q, not its own URL", id, doc.ClientID)
	}
	if doc.Secret != "" || (doc.AuthMethod != "" && doc.AuthMethod != "none") {
		return nil, fmt.Errorf("client metadata document %s: a document describes a public client (token_endpoint_auth_method none, no secret)", id)
	}
	doc.AuthMethod = "none"
	c, err := clientFromMetadata(doc.registration)
	if err != nil {
		return nil, fmt.Errorf("client metadata document %s: %w", id, err)
	}
	c.ID, c.fromDocument = id, true
	if c.Name == "" {
		c.Name = strings.TrimPrefix(id, "https://")
	}
	return c, nil
}
