//go:build !linux

package gitstore

import (
	"os"

	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// fillStat leaves the platform stat fields empty: git then re-hashes the file
// once on its next `git status`, which is correct, only slower.
func fillStat(e *index.Entry, fi os.FileInfo) {}

func statFields(fi os.FileInfo) (ctime [2]uint32, dev, ino, uid, gid uint32, ok bool) {
	return ctime, 0, 0, 0, 0, false
}
