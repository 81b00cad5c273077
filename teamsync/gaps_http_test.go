//go:build unix

package teamsync

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/vault"
)

// With CAIRN_GIT_TOKEN unset, the credentials of a smart-HTTP remote come
// from git's own credential helper, as the user configured it (here the
// store helper, in the user's git config): fetch and push work, and the
// password is written nowhere but the helper's own file, never in a
// vault's .git/config, a report or a command line.
func TestHTTPRemoteWithGitsCredentialHelper(t *testing.T) {
	hermetic(t)
	pass := randomToken(t)
	srv := serveGitHTTP(t, "127.0.0.1:0", "alice", pass, false, false)
	url := srv.URL + "/team.git"
	home := t.TempDir() // the user's, apart from the vaults
	creds := filepath.Join(home, "git-credentials")
	if err := os.WriteFile(creds, []byte(strings.Replace(srv.URL, "://", "://alice:"+pass+"@", 1)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	global := filepath.Join(home, "gitconfig")
	if err := os.WriteFile(global, []byte("[credential]\n\thelper = store --file="+creds+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", global)

	base := t.TempDir()
	a := remoteVault(t, filepath.Join(base, "a"), url)
	var reports []*Report
	reports = append(reports, sync(t, a))
	dirB := filepath.Join(base, "b")
	if err := Clone(context.Background(), url, dirB, ""); err != nil {
		t.Fatalf("clone with the helper's credentials: %v", err)
	}
	b := open(t, dirB)
	edit(t, a, cdn, func(s string) string { return s + "\nAdded by Alice through the helper.\n" })
	edit(t, b, cdn, func(s string) string {
		return strings.Replace(s, "# Decision CDN provider", "# Decision CDN provider\n\nBob's preface through the helper.", 1)
	})
	reports = append(reports, sync(t, a), sync(t, b))
	settled(t, a, b)
	for _, v := range []*vault.Vault{a, b} {
		if got := read(t, v, cdn); !strings.Contains(got, "Added by Alice through the helper.") || !strings.Contains(got, "Bob's preface through the helper.") {
			t.Fatalf("%s lacks a side:\n%s", v.Root(), got)
		}
	}
	if served := gitT(t, srv.Root, "--git-dir=team.git", "rev-parse", "main"); served != gitT(t, b.Root(), "rev-parse", "HEAD") {
		t.Fatalf("the served repository has %s, b another commit", served)
	}
	if files := holding(t, base, pass); len(files) > 0 {
		t.Fatalf("the password was written into the vaults: %v", files)
	}
	for _, rep := range reports {
		if j, _ := json.Marshal(rep); strings.Contains(string(j), pass) {
			t.Fatalf("a report holds the password: %s", j)
		}
	}
	srv.mu.Lock()
	saw, leaks := srv.sawPass, srv.leaks
	srv.mu.Unlock()
	if !saw || len(leaks) > 0 {
		t.Fatalf("password seen by the server: %v; command lines holding it: %v", saw, leaks)
	}

	// The helper's password no longer accepted: a clear authentication
	// failure that does not repeat it, and nothing changed here.
	stale := randomToken(t)
	os.WriteFile(creds, []byte(strings.Replace(srv.URL, "://", "://alice:"+stale+"@", 1)+"\n"), 0o600)
	head, edited := gitT(t, a.Root(), "rev-parse", "HEAD"), handEdit(t, a)
	_, err := Sync(context.Background(), a, Options{})
	wantRemoteErr(t, err, AuthFailed, "origin", url, "nothing changed here")
	if strings.Contains(err.Error(), stale) || strings.Contains(err.Error(), pass) {
		t.Fatalf("the error holds a password: %v", err)
	}
	unchanged(t, a, head, edited)
}
