//go:build unix

package teamsync

import (
	"context"
	"path/filepath"
	"testing"
)

// BenchmarkNoopSyncTransport is a sync with nothing to bring in or push, the
// sample vault, through each transport on 127.0.0.1: what a background
// sync costs when nobody wrote. Run:
//
//	go test ./teamsync -run '^$' -bench NoopSyncTransport -benchtime 50x
func BenchmarkNoopSyncTransport(b *testing.B) {
	hermetic(b)
	tok := randomToken(b)
	b.Setenv(TokenEnv, tok)
	b.Setenv(UsernameEnv, "alice")
	remotes := []struct {
		name string
		url  func(b *testing.B) string
	}{
		{"path", func(b *testing.B) string {
			dir := b.TempDir()
			gitT(b, dir, "init", "-q", "--bare", "-b", "main", "team.git")
			return filepath.Join(dir, "team.git")
		}},
		{"git-daemon", func(b *testing.B) string {
			dir := b.TempDir()
			gitT(b, dir, "init", "-q", "--bare", "-b", "main", "team.git")
			return serveGitDaemon(b, dir) + "/team.git"
		}},
		{"http", func(b *testing.B) string {
			return serveGitHTTP(b, "127.0.0.1:0", "alice", tok, false, false).URL + "/team.git"
		}},
		{"ssh", func(b *testing.B) string {
			s := serveSSH(b)
			b.Setenv("GIT_SSH_COMMAND", s.sshCommand(s.Key))
			return s.url("team.git")
		}},
	}
	for _, r := range remotes {
		b.Run(r.name, func(b *testing.B) {
			v := remoteVault(b, filepath.Join(b.TempDir(), "v"), r.url(b))
			if _, err := Sync(context.Background(), v, Options{}); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				rep, err := Sync(context.Background(), v, Options{})
				if err != nil || !rep.Pushed || len(rep.Incoming) > 0 {
					b.Fatalf("%+v %v", rep, err)
				}
			}
		})
	}
}
