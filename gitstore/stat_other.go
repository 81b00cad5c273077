//go:build !linux

package gitstore

import (
	"os"

	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// fillStat leaves the platform stat fields empty: git then re-hashes the file
// once on its next `git status`, which is correct, only slower.
func fillStat(e *index.Entry, fi os.FileInfo) {}
