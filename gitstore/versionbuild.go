package gitstore

import (
	"sync/atomic"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// versionBuild is a version map being built from nothing in the
// background (startBuild).
type versionBuild struct {
	head plumbing.Hash
	done chan struct{} // closed once vm or err is set
	stop atomic.Bool   // set by Close: give up
	vm   *versionMap
	err  error
	// What reads asked git meanwhile (buildingVersionLocked), s.mu
	// guarding it, and the slots of their git processes.
	asked map[string]askedVersion
	slots chan struct{}
	// progress is what git's walk has read so far: a read takes a version
	// it found, or asks git to walk on from where it is.
	progress walkProgress
	// tip is the last commit this store made on head meanwhile (head
	// before the first), and overlay the version each of those commits
	// gave the paths it changed (zero: deleted), s.mu guarding both:
	// writes go on during the build (buildwrites.go).
	tip     plumbing.Hash
	overlay map[string]plumbing.Hash
	// graph is closed once git's commit-graph write (commitgraph.go) has
	// ended, or was not needed.
	graph <-chan struct{}
}

// ended says whether the build is over (its map or its error is there
// to take).
func (b *versionBuild) ended() bool {
	select {
	case <-b.done:
		return true
	default:
		return false
	}
}

// buildCache bounds the object cache of the repository handle a
// background build opens when it walks with go-git (no git command line),
// and of the one headBlobs reads HEAD's tree with. Walking newest first,
// a tree's delta base is one the walk just read, so a small cache serves
// it; the store's own handle has objectCache.
const buildCache = 16 * cache.MiByte

// startBuild builds the version map of head in the background, so that
// opening a vault with no saved map costs what its files cost, not what
// its history costs: a full build reads history back to the oldest commit
// that last changed a file still in head (issue 16: 50,000 notes, each
// its own commit). The history is read by git (gitVersions), or by go-git
// through a repository handle of the build's own, as go-git's object
// storage is not safe for concurrent use and the store's goes on serving
// reads that need no map (Head, CommitInfo, Walk, Recover). A read of one
// path's version meanwhile asks git for that path alone (ondemand.go),
// helped over a long history by a commit-graph git writes meanwhile
// (commitgraph.go); everything else that needs the map (refreshLocked: a
// commit's compare and swap, Paths, Dirty) waits for it, so no
// versionToken is ever read or compared before it is known.
func (s *Store) startBuild(head plumbing.Hash) {
	b := &versionBuild{head: head, tip: head, done: make(chan struct{}), asked: map[string]askedVersion{},
		slots: make(chan struct{}, onDemandSlots), overlay: map[string]plumbing.Hash{}}
	s.build = b
	b.graph = startGraphWrite(s.dir, s.gitDir)
	go s.warmPacks(b, head)
	go func() {
		defer close(b.done)
		if buildGate != nil {
			buildGate()
		}
		b.vm, b.err = buildVersions(s.dir, head, &b.stop, &b.progress, func() (storer.EncodedObjectStorer, func(), error) {
			repo, err := openRepositoryCache(s.dir, cache.NewObjectLRU(buildCache))
			if err != nil {
				return nil, nil, err
			}
			return repo.Storer, func() { closeRepository(repo) }, nil
		})
	}()
}

// awaitBuildLocked takes the map the background build made at Open,
// waiting for it while it runs. It lets go of s.mu while it waits (a build
// reads the whole history: minutes at 100,000 commits), so that what
// needs no version map, such as Head for a search, is not held up behind
// it. So it is called before anything s.mu guards is read, and never with
// the write lock held: Commit and AdvanceWith take the map before they
// take it. A build that failed (a pack removed by git gc under it) leaves
// the store without a map: refreshLocked then builds one itself.
func (s *Store) awaitBuildLocked() {
	for s.build != nil {
		b := s.build
		select {
		case <-b.done:
		default:
			s.mu.Unlock()
			if buildWaiting != nil {
				buildWaiting()
			}
			<-b.done
			s.mu.Lock()
			if s.build != b {
				continue // another caller took it meanwhile
			}
		}
		s.takeBuildLocked(b)
	}
}

// takeBuildLocked takes a finished build's map.
func (s *Store) takeBuildLocked(b *versionBuild) {
	s.build = nil
	if b.err == nil {
		s.versions, s.dirty = b.vm, true
	}
}

// buildGate, when a test sets it, is called before the background build
// reads anything: the test holds the build open. buildWaiting is called
// when a call starts waiting for the build.
var buildGate, buildWaiting func()

// HoldVersionBuilds is for tests of other packages only (a vault's search
// answering while the version map is still being built): until restore
// is called, every version map built in the background at Open calls gate
// before it reads anything, and waiting (when not nil) is called each time
// a call starts waiting for such a build. Call restore once every store
// opened meanwhile has let its build go.
func HoldVersionBuilds(gate, waiting func()) (restore func()) {
	buildGate, buildWaiting = gate, waiting
	return func() { buildGate, buildWaiting = nil, nil }
}

// settleBuildLocked takes a finished build's map, or stops one still
// running when stop is set (Close: nothing is left to wait for it).
func (s *Store) settleBuildLocked(stop bool) {
	if s.build == nil {
		return
	}
	b := s.build
	select {
	case <-b.done:
	default:
		if !stop {
			return
		}
		// Stopped, it ends at its next commit read: waited for with the
		// lock held, as Close needs.
		b.stop.Store(true)
		b.progress.release() // a walk stopped for an ask sees it
		<-b.done
	}
	s.takeBuildLocked(b)
}
