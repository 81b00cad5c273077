package vault

import (
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/indexing"
)

// What the tests of package vault_test (families_test.go: where the
// kernel and the memory families, which import vault, meet) need of the
// package's insides. Test builds only.

// HoldFirstBuild reopens the vault at dir without its search index, with
// the first build held before it indexes anything (AnswerDuringBuild, as
// a server opens it); release lets it go on.
func HoldFirstBuild(t *testing.T, dir string) (v *Vault, release func()) {
	t.Helper()
	step := indexing.Step
	indexing.Step = 2 // more than one step: searches answer during the build
	held, gate := make(chan struct{}), make(chan struct{})
	var once, let sync.Once
	indexing.TestHooks.Build = func(done, total int) {
		once.Do(func() {
			close(held)
			<-gate
		})
	}
	v, err := Open(dir, Options{Quiet: testQuiet, AnswerDuringBuild: true})
	if err != nil {
		t.Fatal(err)
	}
	release = func() { let.Do(func() { close(gate) }) }
	t.Cleanup(func() {
		release()
		v.Close()
		indexing.TestHooks.Build, indexing.Step = nil, step
	})
	go v.SearchIndex() // as `cairn serve` starts it
	select {
	case <-held:
	case <-time.After(2 * time.Minute):
		t.Fatal("the first build never began")
	}
	return v, release
}

// FirstBuildState says whether a first build of the index is under way,
// how many of its notes it has taken and how many its index holds.
func FirstBuildState(v *Vault) (building bool, done, indexed int) {
	b := v.index.Building()
	if b == nil {
		return false, 0, 0
	}
	return true, b.Done, b.Index.Len()
}

// IndexDir is the search index's folder.
func IndexDir(v *Vault) string { return v.index.Dir() }

// RoleAt is what c may do at path p.
func RoleAt(v *Vault, c access.Caller, p string) access.Role { return v.roleAt(c, p) }

// SearchT and ResultPaths are search_test.go's helpers.
var (
	SearchT     = searchT
	ResultPaths = resultPaths
)

// Pathological, WriteByHand and WaitLaneT are indexlane_test.go's hostile
// notes and helpers.
var (
	Pathological = pathological
	WriteByHand  = writeByHand
	WaitLaneT    = waitLaneT
)
