package gitstore

import (
	"os"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// fillStat copies the stat fields git compares to decide a file is unchanged.
func fillStat(e *index.Entry, fi os.FileInfo) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		e.CreatedAt = time.Unix(st.Ctim.Unix())
		e.Dev = uint32(st.Dev)
		e.Inode = uint32(st.Ino)
		e.UID = st.Uid
		e.GID = st.Gid
	}
}

// statFields reads the change time, device, inode and owner of a file.
func statFields(fi os.FileInfo) (ctime [2]uint32, dev, ino, uid, gid uint32, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ctime, 0, 0, 0, 0, false
	}
	return [2]uint32{uint32(st.Ctim.Sec), uint32(st.Ctim.Nsec)}, uint32(st.Dev), uint32(st.Ino), st.Uid, st.Gid, true
}
