// Package gitstore keeps a vault's files in git: one commit per write, made
// with go-git plumbing so that only the touched paths are hashed and written,
// and a path → last-commit map (the versionTokens) built by one pruned walk
// of first-parent history and then kept current on every commit.
//
// gitstore knows nothing about notes, frontmatter or MCP; it deals in
// slash-separated paths relative to the work tree and byte contents. It owns
// the work-tree files it commits so that the file on disk, the object store,
// the branch and the index change together, in an order that never loses
// content on a crash (see Commit).
//
// go-git's Repository is not safe for concurrent use; a Store serialises
// every operation with one mutex, and the write lock file keeps a second
// process (the cairn command line while a server runs) from interleaving.
package gitstore
