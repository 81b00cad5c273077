package gitstore

import "github.com/go-git/go-git/v5/plumbing"

// A write made while a fresh clone's version map is still being built
// (12 s of git at 100,000 commits on a quiet machine, minutes beside the
// index build) does not wait for it. A commit needs, of the map, the head
// to build on and the version of each path it changes (its compare and
// swap, and whether the path is committed at all). Those come from the
// build's tip and overlay: the last commit this store made on the
// build's head, and the version each such commit gave the paths it
// changed; a path none of them changed has the version it had at the
// build's head, which a read asks git for alone (ondemand.go). The asks
// are made before the write lock is taken, letting go of s.mu while git
// runs as a read does; under the lock, with s.mu held to the end, the
// commit reads only what they left. When the build is over the commit
// takes the map; when HEAD is not the tip (a commit by hand, a sync, a
// crashed commit recovered under the lock) it waits for the map, as
// every commit did before. The map, once taken, is
// brought to HEAD by refreshLocked's walk of the commits in between, as
// after any commit made elsewhere.

// maxChangesDuringBuild bounds the paths of a commit made during the
// build: each may cost an ask of a second or two at 100,000 commits, so a
// commit of more (a folder moved, links rewritten across the vault) waits
// for the map, as every commit did before.
const maxChangesDuringBuild = 16

// askChangesLocked asks the version of each path changes touch while a
// build runs, so that buildingVersionsLocked finds them all. It says
// whether the commit may go on without the map.
func (s *Store) askChangesLocked(changes []Change) bool {
	if s.build == nil || len(changes) > maxChangesDuringBuild {
		return false
	}
	for _, c := range changes {
		if _, _, known := s.buildingVersionLocked(c.Path); !known {
			return false
		}
	}
	return true
}

// buildingVersionsLocked is what a commit under the write lock needs of
// the map while the build runs: the head to build on (the build's tip),
// the version of each path changes touch (absent: not committed), and
// the build to record the commit in. ok is false when the build ended,
// HEAD is not its tip, or a path's version would need git to run.
func (s *Store) buildingVersionsLocked(changes []Change) (head plumbing.Hash, versions map[string]plumbing.Hash, b *versionBuild, ok bool) {
	b = s.build
	if b == nil || b.ended() {
		return plumbing.ZeroHash, nil, nil, false
	}
	if now, err := s.headHash(); err != nil || now != b.tip {
		return plumbing.ZeroHash, nil, nil, false
	}
	versions = make(map[string]plumbing.Hash, len(changes))
	for _, c := range changes {
		v, blob, ask, ok := s.tipVersionLocked(b, c.Path)
		if !ok || ask {
			return plumbing.ZeroHash, nil, nil, false // a tree unread, or a path not asked
		}
		if !blob.IsZero() {
			versions[c.Path] = v
		}
	}
	return b.tip, versions, b, true
}

// tipVersionLocked is path's version at the build's tip and the blob the
// tip holds there (zero: none), from what is known without git: the
// overlay, the asks kept, or the path's absence from the build's head.
// ask says git must be asked first (the path is in the build's head and
// was not asked yet); ok is false when a tree could not be read.
func (s *Store) tipVersionLocked(b *versionBuild, path string) (version, blob plumbing.Hash, ask, ok bool) {
	if v, changed := b.overlay[path]; changed {
		if v.IsZero() {
			return plumbing.ZeroHash, plumbing.ZeroHash, false, true // deleted since
		}
		blob, err := s.headBlobLocked(b.tip, path)
		return v, blob, false, err == nil
	}
	if a, asked := b.asked[path]; asked {
		return a.version, a.blob, false, true
	}
	blob, err := s.headBlobLocked(b.head, path)
	if err != nil {
		return plumbing.ZeroHash, plumbing.ZeroHash, false, false
	}
	return plumbing.ZeroHash, blob, !blob.IsZero(), true
}

// recordBuildingCommit records a commit made during the build b: its
// tip, and the version it gave each path it changed.
func recordBuildingCommit(b *versionBuild, pc *pendingCommit) {
	b.tip = pc.hash
	for _, c := range pc.req.Changes {
		if c.Delete {
			b.overlay[c.Path] = plumbing.ZeroHash
		} else if !pc.unchanged[c.Path] {
			b.overlay[c.Path] = pc.hash
		}
	}
}
