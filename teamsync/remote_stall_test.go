package teamsync

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// silentServer accepts connections and never answers: a remote that hangs.
func silentServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var held []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c) // read nothing, write nothing
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		for _, c := range held {
			c.Close()
		}
	})
	return ln.Addr().String()
}

// A remote that accepts the connection and never answers makes the sync
// fail, saying so, instead of holding it (and every sync after it)
// forever: over HTTP by git's low-speed limit, over anything by the
// sync's own deadline. Nothing changes here either way.
func TestAStalledRemoteFailsTheSyncInsteadOfHangingIt(t *testing.T) {
	hermetic(t)
	addr := silentServer(t)
	t.Run("http", func(t *testing.T) {
		t.Setenv("GIT_HTTP_LOW_SPEED_TIME", "1") // git's default here is a minute
		url := "http://" + addr + "/team.git"
		v := remoteVault(t, filepath.Join(t.TempDir(), "v"), url)
		edited := handEdit(t, v)
		head := gitT(t, v.Root(), "rev-parse", "HEAD")
		_, err := Sync(context.Background(), v, Options{})
		wantRemoteErr(t, err, Stalled, "origin", url, "nothing changed here")
		unchanged(t, v, head, edited)
	})
	t.Run("git", func(t *testing.T) {
		url := "git://" + addr + "/team.git"
		v := remoteVault(t, filepath.Join(t.TempDir(), "v"), url)
		edited := handEdit(t, v)
		head := gitT(t, v.Root(), "rev-parse", "HEAD")
		_, err := Sync(context.Background(), v, Options{Timeout: 2 * time.Second})
		if err == nil || !strings.Contains(err.Error(), "stopped after 2s") || !strings.Contains(err.Error(), `the remote "origin"`) {
			t.Fatalf("err %v", err)
		}
		unchanged(t, v, head, edited)
	})
}
