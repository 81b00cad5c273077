package gitstore

import (
	"errors"
	"io/fs"
	"syscall"
)

// Missing says whether err, from reading or statting a file of the
// working tree, means the file is not there: it does not exist, or a
// folder on its path was replaced by a file ("not a directory"). A folder
// of notes removed and a file written in its place gives its notes the
// second error; taken for an unreadable file, their deletions were never
// committed.
func Missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}
