// Package search finds notes: a Bleve full-text index (BM25, English and
// French analysis side by side), a sidecar file of chunk vectors made by a
// pluggable Embedder and searched exactly in memory, Reciprocal Rank Fusion
// of the two lists (the semantic one weighed by the evidence it has:
// fuse.go), Markdown snippets, and token budgets counted with a real BPE
// tokenizer.
//
// The package knows nothing of vaults, projects or principals: the vault
// hands it documents with an opaque access scope and asks queries with the
// scopes a caller may read, so access control is part of every query and
// never a filter applied after the limit. Everything here is derived state:
// a missing or damaged index or vector file is rebuilt, never trusted, and
// an index out of step with its manifest after a crash is reconciled with
// it (reconcile.go).
package search

import "time"

// Doc is one note as the index sees it.
type Doc struct {
	// Path is the document's key: unique, slash-separated.
	Path string
	// Version is opaque (the vault uses the file's size and mtime): a Doc
	// whose Version is already indexed is not indexed again, and vectors
	// are recomputed only when it changes.
	Version string
	ID      string
	Title   string
	Aliases []string
	Tags    []string
	Type    string
	Class   string
	Project string
	Owner   string
	// Scope is what access is decided by: a query names the scopes its
	// caller may read, and only documents in one of them can match.
	Scope string
	// Date is the note's own date (frontmatter), else when it last
	// changed; filters after/before use it.
	Date time.Time
	// Meta holds other frontmatter values worth finding (a speaker, a
	// place): searched as text with a low weight.
	Meta []string
	// Who are the people a note is by or from (frontmatter speaker,
	// author...). A query naming one of them prefers their notes instead
	// of matching the name as a word (see names in search.go).
	Who []string
	// Context is the text of the notes this one continues or is continued
	// by (a conversation's previous and next turns): searched with a low
	// weight, so a question asked in one turn finds the reply in the next.
	Context string
	// Sequence are the paths of the notes this one continues or is
	// continued by: each search hit passes a share of its score to them.
	Sequence []string
	// Body is the Markdown after the frontmatter.
	Body string
}
