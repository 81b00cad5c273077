package oauth

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/mcptools"
	"github.com/cairn-dev/cairn/vault"
)

// grantsFixture writes n grants (as the authorization server makes them)
// beside one personal token, and returns the server, a real access token
// of one grant, and the personal token.
func grantsFixture(b *testing.B, n int) (*Server, string, string) {
	b.Helper()
	dir := b.TempDir()
	tokens := mcptools.NewTokenStore(dir)
	pat, _, err := tokens.Create(mcptools.TokenRecord{Principal: "owner", Scope: "write"})
	if err != nil {
		b.Fatal(err)
	}
	s, err := New(Options{Root: dir, PublicURL: "http://127.0.0.1:1", Resources: mcptools.Paths(), Tokens: tokens})
	if err != nil {
		b.Fatal(err)
	}
	recs, _ := tokens.List()
	now := time.Now().UTC()
	var access string
	for i := range n {
		rec := mcptools.TokenRecord{ID: randomID(5), Kind: mcptools.KindOAuth, Principal: "owner", Scope: "write",
			Toolsets: []string{mcptools.ToolsetGateway}, Client: "cairn_client_" + randomID(12), ClientName: "Some App",
			Resource: s.o.PublicURL + "/mcp", Created: now, Expires: now.Add(s.o.RefreshTTL), AccessExpires: now.Add(s.o.AccessTTL)}
		accessID, refresh := newPair(rec.ID)
		rec.AccessHash, rec.RefreshHash = hashOf(accessID), hashOf(refresh)
		rec.UsedRefresh = []string{hashOf(randomID(8))}
		if i == n/2 {
			if access, err = s.provider.Crypto().Encrypt(accessID + ":owner"); err != nil {
				b.Fatal(err)
			}
		}
		recs = append(recs, rec)
	}
	data, _ := json.MarshalIndent(recs, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, vault.TokensFile), data, 0o600); err != nil {
		b.Fatal(err)
	}
	return s, access, pat
}

// The cost of checking a token on each call, with 10,000 grants in the
// store: a personal token against an OAuth access token (decryption and
// the grant's lookup). Reports p50 and p99 over the run's calls.
//
//	go test -run '^$' -bench 'Verify$' -benchtime 1000x ./oauth
func BenchmarkVerify(b *testing.B) {
	s, access, pat := grantsFixture(b, 10000)
	for _, c := range []struct {
		name   string
		verify func() error
	}{
		{"personal-token", func() error { _, err := s.tokens.Verify(pat); return err }},
		{"oauth-access-token", func() error { _, err := s.VerifyAccess(access, s.o.PublicURL+"/mcp"); return err }},
	} {
		b.Run(c.name, func(b *testing.B) {
			if err := c.verify(); err != nil { // loads the file once
				b.Fatal(err)
			}
			took := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for range b.N {
				t0 := time.Now()
				if err := c.verify(); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(t0))
			}
			b.StopTimer()
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "p99-µs")
		})
	}
}

// The memory 10,000 live grants hold once loaded (the token store keeps
// them in memory), and the size of the file.
//
//	go test -run '^$' -bench GrantsMemory -benchtime 3x ./oauth
func BenchmarkGrantsMemory(b *testing.B) {
	const n = 10000
	s, _, pat := grantsFixture(b, n)
	fi, _ := os.Stat(filepath.Join(s.o.Root, vault.TokensFile))
	b.ResetTimer()
	var held uint64
	for range b.N {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		fresh := mcptools.NewTokenStore(s.o.Root)
		if _, err := fresh.Verify(pat); err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(fresh)
		if after.HeapAlloc > before.HeapAlloc {
			held = after.HeapAlloc - before.HeapAlloc
		}
	}
	b.ReportMetric(float64(held)/(1<<20), "MiB-per-10k-grants")
	b.ReportMetric(float64(fi.Size())/(1<<20), "file-MiB")
}
