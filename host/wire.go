package host

import (
	"encoding/json"
	"io"

	"github.com/cairn-dev/cairn/mcptools"
)

// protocol is the wire protocol's version. A host and a front end of
// different versions (two cairn binaries on one vault, during an upgrade)
// refuse each other at the greeting, and the front end says so.
const protocol = 1

// The wire: each side writes JSON values, one after the other, on the
// socket. The front end greets first, the host answers its greeting, then
// the front end sends requests and the host answers each by its id, in
// any order (calls run concurrently).
type greeting struct {
	Protocol int    `json:"protocol"`
	PID      int    `json:"pid"`
	Version  string `json:"version"`
}

// Request operations.
const (
	opCall    = "call"    // a tool call: Claim, Tool, Args
	opSearch  = "search"  // the command line's search, as the owner: Args is vault.SearchArgs
	opReindex = "reindex" // rebuild the search index; progress replies, then the count
	opSync    = "sync"    // sync with a git remote, as the owner: Args is teamsync.Options
	opDrained = "drained" // the answer to opDrain: nothing more comes on this connection
	// opCancel: the front end's client gave up on request Cancels. One
	// still waiting for the vault to open is then not run (answered
	// NotRun); one running goes on and is answered. A host that does not
	// know the operation answers the cancel's own id with an error, which
	// the front end drops.
	opCancel = "cancel"
)

// Reply operations besides the answer to a request.
const (
	opDrain    = "drain"    // the host is handing over: send nothing more, answer opDrained
	opProgress = "progress" // a step of a reindex
)

type request struct {
	ID      uint64         `json:"id,omitempty"`
	Op      string         `json:"op"`
	Cancels uint64         `json:"cancels,omitempty"` // opCancel: the request given up
	Claim   mcptools.Claim `json:"claim"`
	Tool    string         `json:"tool,omitempty"`
	// Args travel as bytes (base64 in JSON): byte for byte what the client
	// sent, even when that is not valid JSON or UTF-8, for the host's
	// checks to answer exactly as they would in its own process.
	Args []byte `json:"args,omitempty"`
}

type reply struct {
	ID     uint64          `json:"id,omitempty"`
	Op     string          `json:"op,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	// NotRun: the host did not start the call (it is handing over); the
	// front end sends it again to the next host.
	NotRun bool   `json:"notRun,omitempty"`
	Error  string `json:"error,omitempty"`
	// Progress of a reindex.
	Stage string `json:"stage,omitempty"`
	Done  int    `json:"done,omitempty"`
	Total int    `json:"total,omitempty"`
}

// newEncoder writes the wire's JSON values: arguments and results go
// through byte for byte (no escaping of <, > and &).
func newEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}
