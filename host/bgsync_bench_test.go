package host

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn/teamsync"
	"github.com/cairn-dev/cairn/vault"
)

// BenchmarkIdleSyncTick is what a background sync costs when nothing
// changed on either side (most ticks): a fetch from a local bare remote,
// on the sample vault.
//
//	go test ./host -run '^$' -bench IdleSyncTick -benchtime 50x
func BenchmarkIdleSyncTick(b *testing.B) {
	base := b.TempDir()
	remote := filepath.Join(base, "remote.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", "-b", "main", remote).CombinedOutput(); err != nil {
		b.Fatalf("%v %s", err, out)
	}
	dir := filepath.Join(base, "v")
	if _, err := vault.Init(dir, vault.InitOptions{From: "../sample-vault"}); err != nil {
		b.Fatal(err)
	}
	if out, err := exec.Command("git", "-C", dir, "remote", "add", "origin", remote).CombinedOutput(); err != nil {
		b.Fatalf("%v %s", err, out)
	}
	v, err := vault.Open(dir, vault.Options{Exclusive: true})
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	if _, err := teamsync.Sync(context.Background(), v, teamsync.Options{}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		rep, err := teamsync.Sync(context.Background(), v, teamsync.Options{})
		if err != nil || len(rep.Incoming) != 0 {
			b.Fatalf("%+v %v", rep, err)
		}
	}
}
