package mcptools

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
)

// Toolsets a token may be granted.
const (
	ToolsetGateway   = "gateway"
	ToolsetTreaisure = "treaisure"
	ToolsetHindsight = "hindsight"
)

// AllToolsets is every toolset, in a stable order.
var AllToolsets = []string{ToolsetGateway, ToolsetTreaisure, ToolsetHindsight}

// TokenRecord is a stored token: never the token itself, only its hash.
type TokenRecord struct {
	ID        string    `json:"id"`
	Principal string    `json:"principal"`
	Scope     string    `json:"scope"` // read or write: the ceiling
	Toolsets  []string  `json:"toolsets"`
	Projects  []string  `json:"projects,omitempty"` // nil: all the principal's
	Banks     []string  `json:"banks,omitempty"`
	Name      string    `json:"name,omitempty"`
	Created   time.Time `json:"created"`
	Hash      string    `json:"hash,omitempty"` // hex sha-256 of the whole token (a personal token)

	// An OAuth grant (Kind "oauth", package oauth): what a person approved
	// for a client, with the hashes of its current access and refresh
	// tokens. Revoking the record ends both at once.
	Kind          string    `json:"kind,omitempty"`
	Client        string    `json:"client,omitempty"` // the client's id
	ClientName    string    `json:"clientName,omitempty"`
	Resource      string    `json:"resource,omitempty"` // the URL its access tokens are for (RFC 8707)
	Expires       time.Time `json:"expires,omitzero"`   // when it ends unless refreshed
	AccessHash    string    `json:"accessHash,omitempty"`
	AccessExpires time.Time `json:"accessExpires,omitzero"`
	RefreshHash   string    `json:"refreshHash,omitempty"`
	// UsedRefresh are the hashes of refresh tokens already exchanged: one
	// presented again means it was stolen, and ends the grant (RFC 9700).
	UsedRefresh []string  `json:"usedRefresh,omitempty"`
	LastUsed    time.Time `json:"lastUsed,omitzero"`
}

// KindOAuth marks a record that is an OAuth grant.
const KindOAuth = "oauth"

// TokenStore reads and writes .cairn/secrets/tokens.json (mode 0600, never
// committed). It re-reads the file when it changes, so a revocation by the
// command line takes effect in a running server at the next request.
type TokenStore struct {
	file string

	mu      sync.Mutex
	stamp   string
	records []TokenRecord
	byID    map[string]int // index in records, made at load: a grant is looked up on every call
}

// NewTokenStore opens the token file of the vault at root.
func NewTokenStore(root string) *TokenStore {
	return &TokenStore{file: filepath.Join(root, vault.TokensFile)}
}

const tokenPrefix = "cairn_pat_"

var b32 = base32.StdEncoding.WithPadding(base32.NoPadding)

func (s *TokenStore) load() ([]TokenRecord, error) {
	fi, err := os.Stat(s.file)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	stamp := fmt.Sprintf("%d/%d", fi.Size(), fi.ModTime().UnixNano())
	if stamp == s.stamp {
		return s.records, nil
	}
	data, err := os.ReadFile(s.file)
	if err != nil {
		return nil, err
	}
	var recs []TokenRecord
	if err := json.Unmarshal(data, &recs); err != nil {
		return nil, fmt.Errorf("%s: %w", s.file, err)
	}
	s.stamp, s.records = stamp, recs
	s.byID = make(map[string]int, len(recs))
	for i, r := range recs {
		s.byID[r.ID] = i
	}
	return recs, nil
}

func (s *TokenStore) save(recs []TokenRecord) error {
	if err := os.MkdirAll(filepath.Dir(s.file), 0o700); err != nil {
		return err
	}
	data, err := json.MarshalIndent(recs, "", "  ")
	if err != nil {
		return err
	}
	if err := gitstore.WriteFileAtomic(s.file, data, 0o600); err != nil {
		return err
	}
	os.Chmod(s.file, 0o600)
	s.stamp = ""
	return nil
}

// Create makes a token and returns it: the only time it is ever shown.
func (s *TokenStore) Create(rec TokenRecord) (string, TokenRecord, error) {
	if err := access.ValidPrincipal(rec.Principal); err != nil {
		return "", rec, fmt.Errorf("principal: %w", err)
	}
	if rec.Scope != "read" && rec.Scope != "write" {
		return "", rec, fmt.Errorf("scope: %q is not read or write", rec.Scope)
	}
	if len(rec.Toolsets) == 0 {
		rec.Toolsets = []string{ToolsetGateway}
	}
	for _, t := range rec.Toolsets {
		if !slices.Contains(AllToolsets, t) {
			return "", rec, fmt.Errorf("toolsets: %q is not one of %s", t, strings.Join(AllToolsets, ", "))
		}
	}
	idb := make([]byte, 5)
	secret := make([]byte, 20)
	rand.Read(idb)
	rand.Read(secret)
	rec.ID = strings.ToLower(b32.EncodeToString(idb))
	token := tokenPrefix + rec.ID + "_" + strings.ToLower(b32.EncodeToString(secret))
	sum := sha256.Sum256([]byte(token))
	rec.Hash = hex.EncodeToString(sum[:])
	rec.Created = time.Now().UTC().Truncate(time.Second)
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, err := s.load()
	if err != nil {
		return "", rec, err
	}
	if err := s.save(append(slices.Clone(recs), rec)); err != nil {
		return "", rec, err
	}
	return token, rec, nil
}

// List returns the stored tokens (hashes only).
func (s *TokenStore) List() ([]TokenRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, err := s.load()
	return slices.Clone(recs), err
}

// Revoke deletes a token by id.
func (s *TokenStore) Revoke(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, err := s.load()
	if err != nil {
		return err
	}
	i := s.indexLocked(recs, id)
	if i < 0 {
		return fmt.Errorf("no token with id %q (cairn token list shows them)", id)
	}
	return s.save(slices.Delete(slices.Clone(recs), i, i+1))
}

// indexLocked is where the record of id is in recs, as load just returned
// them (-1: none).
func (s *TokenStore) indexLocked(recs []TokenRecord, id string) int {
	if i, ok := s.byID[id]; ok && i < len(recs) && recs[i].ID == id {
		return i
	}
	return -1
}

// Put adds a record made elsewhere (an OAuth grant), or replaces the one
// of its id; records whose Expires has passed are dropped.
func (s *TokenStore) Put(rec TokenRecord) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, err := s.load()
	if err != nil {
		return err
	}
	out := slices.DeleteFunc(slices.Clone(recs), func(r TokenRecord) bool { return r.ID == rec.ID || expired(r) })
	return s.save(append(out, rec))
}

// Update changes the record of id under the store's lock: f sees the
// record as the file holds it now; an error from f changes nothing.
func (s *TokenStore) Update(id string, f func(*TokenRecord) error) (TokenRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, err := s.load()
	if err != nil {
		return TokenRecord{}, err
	}
	i := s.indexLocked(recs, id)
	if i < 0 || expired(recs[i]) {
		return TokenRecord{}, ErrBadToken
	}
	out := slices.Clone(recs)
	if err := f(&out[i]); err != nil {
		return TokenRecord{}, err
	}
	rec := out[i]
	return rec, s.save(slices.DeleteFunc(out, expired))
}

// expired says whether a record has an end and it has passed.
func expired(r TokenRecord) bool { return !r.Expires.IsZero() && time.Now().After(r.Expires) }

// ErrBadToken is any token that does not verify: unknown, revoked, malformed.
var ErrBadToken = errors.New("invalid or revoked token")

// Verify returns the record of a presented token.
func (s *TokenStore) Verify(token string) (TokenRecord, error) {
	if !strings.HasPrefix(token, tokenPrefix) {
		return TokenRecord{}, ErrBadToken
	}
	sum := sha256.Sum256([]byte(token))
	want := hex.EncodeToString(sum[:])
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, err := s.load()
	if err != nil {
		return TokenRecord{}, err
	}
	for _, r := range recs {
		if r.Kind == "" && subtle.ConstantTimeCompare([]byte(r.Hash), []byte(want)) == 1 {
			return r, nil
		}
	}
	return TokenRecord{}, ErrBadToken
}

// Lookup returns the record of a token by its id, as the token file holds
// it now: ErrBadToken once it is revoked.
func (s *TokenStore) Lookup(id string) (TokenRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, err := s.load()
	if err != nil {
		return TokenRecord{}, err
	}
	if i := s.indexLocked(recs, id); i >= 0 && !expired(recs[i]) {
		return recs[i], nil
	}
	return TokenRecord{}, ErrBadToken
}
