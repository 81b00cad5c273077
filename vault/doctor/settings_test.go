package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
)

func TestDoctorReportsABadSyncSection(t *testing.T) {
	v, dir := sampleVault(t)
	writeConfig(t, dir, "format: 1\nsync: {every: 30s, remote: 'https://evil.example/x.git'}\n")
	var found *Finding
	for _, f := range Check(v) {
		if f.Check == "sync" {
			found = &f
		}
		if f.Check == "config" && f.Level == "problem" {
			t.Fatalf("the rest of the file is fine: %+v", f)
		}
	}
	if found == nil || found.Level != "problem" || !strings.Contains(found.Message, "sync.remote") || !strings.Contains(found.Message, "background sync is off") {
		t.Fatalf("doctor's sync finding: %+v", found)
	}
}

// An access file arriving by sync that names an owner who is a path
// (people/<owner>/profile.md would lead out of the vault) is broken: a
// running server keeps the last good rules and never reads outside the
// vault, doctor names the file and the key, and a fresh open refuses it.
func TestAccessFilePrincipalsMustBePrincipals(t *testing.T) {
	v, dir := sampleVault(t)
	outside := filepath.Join(filepath.Dir(dir), "outside")
	os.MkdirAll(outside, 0o755)
	os.WriteFile(filepath.Join(outside, vault.ProfileFile), []byte("# Outside\n\nNOT-A-VAULT-FILE\n"), 0o644)
	os.WriteFile(filepath.Join(dir, vault.AccessFile), []byte("owner: '../../outside'\n"), 0o644)

	s, err := v.StartSession(access.Caller{Principal: v.Owner(), Ceiling: access.RoleWrite, Actor: "agent", Tool: "test"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if v.Owner() != "owner" || (s.Profile != nil && strings.Contains(s.Profile.Content, "NOT-A-VAULT-FILE")) {
		t.Fatalf("owner %q, profile %+v", v.Owner(), s.Profile)
	}
	found := false
	for _, f := range Check(v) {
		found = found || f.Check == "access" && f.Level == "problem" && strings.Contains(f.Message, vault.AccessFile+": owner:") && strings.Contains(f.Message, "not a valid principal")
	}
	if !found {
		t.Fatalf("doctor: %+v", Check(v))
	}
	v.Close()
	if _, err := vault.Open(dir, vault.Options{Quiet: testQuiet}); err == nil || !strings.Contains(err.Error(), vault.AccessFile+": owner:") {
		t.Fatalf("open: %v", err)
	}
	for _, bad := range []struct{ yaml, key string }{
		{"owner: owner\nmembers:\n  Bob Smith: {acme: read}\n", "members:"},
		{"owner: owner\nbanks:\n  ../x: [b1]\n", "banks:"},
	} {
		os.WriteFile(filepath.Join(dir, vault.AccessFile), []byte(bad.yaml), 0o644)
		if _, err := vault.ReadOwner(dir); err == nil || !strings.Contains(err.Error(), vault.AccessFile+": "+bad.key) {
			t.Errorf("%q: %v", bad.yaml, err)
		}
	}
}

// A broken embedder setting turns semantic search off, says why (and in
// which file) in every search, and is reported by doctor; lexical search
// goes on.
func TestBrokenEmbedderSettingRunsLexically(t *testing.T) {
	v, dir := sampleVault(t)
	local := "embedder:\n  provider: openai\n  url: http://127.0.0.1:9\n  model: m\n  apiKeyEnv: CAIRN_TEST_UNSET_KEY\n"
	if err := os.WriteFile(filepath.Join(dir, vault.LocalFile), []byte(local), 0o644); err != nil {
		t.Fatal(err)
	}
	r := searchT(t, v, owner, vault.SearchArgs{Query: "rollback"})
	if r.Mode != "lexical" || r.Requested != "hybrid" || !strings.Contains(r.Notice, vault.LocalFile+": embedder.apiKeyEnv") || !strings.Contains(r.Notice, "CAIRN_TEST_UNSET_KEY") || len(r.Results) == 0 {
		t.Fatalf("got mode %s notice %q, %d results", r.Mode, r.Notice, len(r.Results))
	}
	if v.SemanticSearch() {
		t.Error("whoami would claim vector search")
	}
	found := false
	for _, f := range Check(v) {
		found = found || f.Level == "problem" && f.Check == "embedder" && strings.Contains(f.Message, "CAIRN_TEST_UNSET_KEY")
	}
	if !found {
		t.Errorf("doctor does not report the embedder: %+v", Check(v))
	}
	os.Remove(filepath.Join(dir, vault.LocalFile))
	os.WriteFile(filepath.Join(dir, vault.ConfigFile), []byte("format: 1\nembedder:\n  provider: magic\n"), 0o644)
	found = false
	for _, f := range Check(v) {
		found = found || f.Level == "problem" && f.Check == "config" && strings.Contains(f.Message, "magic")
	}
	if !found {
		t.Errorf("doctor does not report the unknown provider: %+v", Check(v))
	}
}
