// Package host lets any number of processes serve one vault at once.
//
// The first process that opens the vault exclusively (vault.Options
// Exclusive, the host lock .cairn/cache/host.lock) hosts it: it alone
// keeps the search index and the vectors, watches the files, commits a
// person's edits and runs every tool call. It listens on a Unix socket
// (SocketPath, mode 0600, peers of another user refused). Every other
// `cairn serve` is a front end: it speaks MCP to its own client (stdio or
// HTTP, as its own caller) and sends each tool call to the host,
// which resolves the caller itself (mcptools.ResolveClaim).
// So a write acknowledged to one client is what every other client reads
// and searches next: there is one vault in memory, not one per process.
//
// A serving process answers its client (initialize, tools/list) before
// the vault is open. The host listens as soon as it holds the lock, and
// every call, its own client's and the attached ones', waits for the open
// (bounded by the call's context; a call cancelled meanwhile is never
// run); a failed open is every waiting call's answer.
//
// A Node is one serving process's side of this: it attaches to the host,
// or becomes the host when there is none. When the host exits it hands
// over: it stops taking calls (those it had not started are answered
// "not run" and sent again by their front end), finishes the calls in
// progress, closes the vault and releases the lock; a waiting node takes
// the lock and opens the vault. When the host is killed, the kernel
// releases the lock and closes the socket: a node takes over the same way
// (the vault's Open recovers an interrupted commit), read-only calls that
// were in progress are sent again, and a write in progress is answered
// with an error that may be retried (mcptools.UnavailableError).
//
// The command line uses the host too (Acquire): `cairn search` and
// `cairn reindex` run in the host when there is one, else in their own
// process holding the host lock for their duration.
package host
