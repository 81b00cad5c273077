package main

import (
	"fmt"
	"math"
	"runtime"
	"sort"
	"strings"
)

// owner names a part of the process by the functions that allocate its
// memory. The first owner any frame of a sample's stack matches takes the
// sample, so the order matters: go-git's storage before the gitstore code
// that reads through it (its LRU keeps what it decoded), the link graph
// before the catalog whose scan feeds it.
type owner struct {
	name  string
	funcs []string // prefixes of fully qualified function names
}

const (
	cairn = "github.com/cairn-dev/cairn/"
	gogit = "github.com/go-git/go-git/v5/"
)

var owners = []owner{
	{"go-git: pack indexes (.idx read whole)", []string{gogit + "plumbing/format/idxfile."}},
	{"go-git: object LRU and packfile reads (96 MiB bound)", []string{gogit + "plumbing/format/packfile.", gogit + "plumbing/cache.", gogit + "storage/filesystem."}},
	// A note's text read for the index is garbage once indexed, unless
	// something keeps a piece of it: what is still live here is.
	{"vault.searchDoc: note texts read for the index, still held", []string{cairn + "vault.(*Vault).searchDoc"}},
	// A title is a substring of a copy of its note's whole text.
	{"note.TitleOf: titles (catalog, graph)", []string{cairn + "vault/note.TitleOf"}},
	{"gitstore: commit-diff cache (walkCache)", []string{cairn + "gitstore.(*Store).commitChanges", cairn + "gitstore.(*Store).remember"}},
	{"gitstore: version map", []string{cairn + "gitstore.loadVersionMap", cairn + "gitstore.updateVersionMap", cairn + "gitstore.(*versionMap)", cairn + "gitstore.(*treeWalker).resolve"}},
	{"gitstore: git index (stat cache)", []string{cairn + "gitstore.(*Store).loadStatCache", cairn + "gitstore.parseIndex"}},
	{"gitstore: other", []string{cairn + "gitstore."}},
	{"go-git: other (decoded objects)", []string{gogit}},
	{"search: vectors (arena, chunk lists)", []string{cairn + "search.(*vectors)", cairn + "search.loadVectors", cairn + "search.decodeRecord", cairn + "search.quantize", cairn + "search.dequantize", cairn + "search.Chunks"}},
	{"search: word-vector model (builtin embedder)", []string{cairn + "search.parseWordTable", cairn + "search.Builtin", cairn + "search.newBuiltin"}},
	{"search: embedding queue", []string{cairn + "search.(*embedQueue)", cairn + "search.newEmbedQueue"}},
	{"Bleve (in heap)", []string{"github.com/blevesearch/", "github.com/RoaringBitmap/", "github.com/bits-and-blooms/"}},
	{"search: other (document metadata, manifest)", []string{cairn + "search."}},
	{"wikilinks: link graph", []string{cairn + "wikilinks.(*Graph)", cairn + "wikilinks.New", cairn + "wikilinks.add"}},
	{"vault: catalog (entries, their parsed links, ids)", []string{cairn + "vault.loadCatalog", cairn + "vault.(*catalog)", cairn + "vault.(*Vault).rescan"}},
	{"wikilinks: other", []string{cairn + "wikilinks."}},
	{"vault: other", []string{cairn + "vault."}},
	{"server (host, mcptools, mcp-go)", []string{cairn + "host.", cairn + "mcptools.", "github.com/mark3labs/"}},
	{"file watcher (fsnotify)", []string{"github.com/fsnotify/"}},
}

// owned is the live heap one owner holds, with its largest allocation
// sites (the innermost function outside the runtime and the standard
// maps and slices).
type owned struct {
	Name  string `json:"name"`
	Bytes uint64 `json:"bytes"`
	Sites []site `json:"sites"`
}

type site struct {
	Func  string `json:"func"`
	Bytes uint64 `json:"bytes"`
}

// heapRecords is the runtime's heap profile: one record per allocation
// stack, in-use figures as of the last completed GC.
func heapRecords() []runtime.MemProfileRecord {
	n, _ := runtime.MemProfile(nil, true)
	for {
		recs := make([]runtime.MemProfileRecord, n+64)
		var ok bool
		n, ok = runtime.MemProfile(recs, true)
		if ok {
			return recs[:n]
		}
	}
}

// scaled is a record's in-use bytes estimated from its samples, as pprof
// does: an allocation of s bytes is sampled with probability
// 1-exp(-s/rate).
func scaled(r runtime.MemProfileRecord) uint64 {
	count, size := r.InUseObjects(), r.InUseBytes()
	if count <= 0 || size <= 0 {
		return 0
	}
	rate := float64(runtime.MemProfileRate)
	if rate <= 1 {
		return uint64(size)
	}
	avg := float64(size) / float64(count)
	return uint64(float64(size) / (1 - math.Exp(-avg/rate)))
}

// attribute sums the live heap by owner, largest first.
func attribute(recs []runtime.MemProfileRecord) []owned {
	byOwner := map[string]*owned{}
	sites := map[string]map[string]uint64{}
	for _, r := range recs {
		b := scaled(r)
		if b == 0 {
			continue
		}
		funcs := stackFuncs(r.Stack())
		name := ownerOf(funcs)
		o := byOwner[name]
		if o == nil {
			o = &owned{Name: name}
			byOwner[name] = o
			sites[name] = map[string]uint64{}
		}
		o.Bytes += b
		sites[name][siteOf(funcs)] += b
	}
	var out []owned
	for name, o := range byOwner {
		for f, b := range sites[name] {
			o.Sites = append(o.Sites, site{f, b})
		}
		sort.Slice(o.Sites, func(i, j int) bool { return o.Sites[i].Bytes > o.Sites[j].Bytes })
		out = append(out, *o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Bytes > out[j].Bytes })
	return out
}

// stackFuncs names a stack's frames, innermost first.
func stackFuncs(pcs []uintptr) []string {
	var out []string
	frames := runtime.CallersFrames(pcs)
	for {
		f, more := frames.Next()
		out = append(out, f.Function)
		if !more {
			return out
		}
	}
}

func ownerOf(funcs []string) string {
	for _, o := range owners {
		for _, f := range funcs {
			for _, p := range o.funcs {
				if strings.HasPrefix(f, p) {
					return o.name
				}
			}
		}
	}
	// Unclaimed: named by the outermost package that is not the runtime's
	// or the standard library's own plumbing.
	for i := len(funcs) - 1; i >= 0; i-- {
		if pkg := pkgOf(funcs[i]); pkg != "" && !plumbing(pkg) {
			return "other: " + pkg
		}
	}
	return "other: runtime"
}

// siteOf is the innermost frame that says more than "a map grew".
func siteOf(funcs []string) string {
	for _, f := range funcs {
		if pkg := pkgOf(f); pkg != "" && !plumbing(pkg) {
			return f
		}
	}
	if len(funcs) > 0 {
		return funcs[0]
	}
	return "?"
}

func plumbing(pkg string) bool {
	switch pkg {
	case "runtime", "internal/runtime/maps", "reflect", "strings", "bytes", "bufio", "slices", "maps", "sync", "unique",
		"encoding/json", "encoding/binary", "io", "os", "strconv", "fmt", "sort", "main":
		return true
	}
	return strings.HasPrefix(pkg, "internal/")
}

// pkgOf is a function's package path ("a/b/c.(*T).M" → "a/b/c").
func pkgOf(fn string) string {
	slash := strings.LastIndex(fn, "/")
	dot := strings.Index(fn[slash+1:], ".")
	if dot < 0 {
		return ""
	}
	return fn[:slash+1+dot]
}

func mib(b uint64) string { return fmt.Sprintf("%.1f", float64(b)/(1<<20)) }
