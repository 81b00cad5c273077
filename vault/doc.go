// Package vault is cairn's domain: notes (YAML frontmatter + Markdown body)
// with stable ids and titles, classes, spaces and projects named by handles,
// each principal's personal domain, the trash, path safety, and the write
// path that ties a file change to exactly one git commit.
//
// Every operation takes the Caller it acts for and checks access itself,
// whatever layer called it: the MCP tools, the command line or a test.
// The Markdown files and their git history are the truth; everything the
// vault keeps in memory or under .cairn/cache/ is derived and rebuildable.
//
// # What is where
//
// The kernel:
//   - vault.go: Open and Close, the Vault type and its lock order.
//   - catalog.go, catalogdirs.go, catalogapi.go, idpaths.go: what the
//     vault knows of every note without opening it (id, title, aliases,
//     links, the link graph, the paths carrying each id), and per-folder
//     tallies. The catalog owns its lock: the rest
//     of the package asks it through catalogapi.go's methods, each of
//     which locks and calls out to nothing but the graphs
//     (catalog_shape_test.go keeps it so).
//   - the note model is package vault/note (parsing and rendering,
//     frontmatter edits that change only their own lines, properties as
//     Obsidian writes them, outlines); names.go gives file names that
//     every operating system accepts, linktypes.go checks a link type
//     against the vault's Obsidian settings, layout.go says which class a
//     note has from where it lives.
//   - write.go, edit.go, commit.go, linkwrite.go: the write path (create,
//     edit, typed links), one commit per write with provenance trailers,
//     compare-and-swap on versionTokens.
//   - read.go, list.go, links.go, history.go, activity.go: reads
//     (resolving a ref, get_note), folder listings, link listings, a
//     note's history, recent activity.
//   - reorganize.go, reorganizefolder.go, rewrite.go, upkeep.go: moves and
//     renames of notes and folders that rewrite every link in its own
//     style, and the link guard.
//   - watch.go, stray.go, handfiles.go, stranded.go: edits made by hand,
//     committed as the person's; files that are not notes; writes a git
//     operation left off the branch.
//   - paths.go, fileio.go, ignore.go, layout.go, errors.go: path safety,
//     reading without following links, .gitignore, fixed places, the
//     errors callers can tell apart.
//
// Access and projects:
//   - roles, the Caller, the access file and its merge across clones are
//     package vault/access; access.go reads the files from the vault (with
//     this machine's owner), permissions.go decides what a caller may do
//     at a path.
//   - projects.go, admin.go, initproject.go: projects by marker file, made
//     by people.
//   - init.go, adopt.go, obsidianapp.go, config.go, embedder.go: making or
//     adopting a vault, Obsidian's settings, the committed config and this
//     machine's embedder.
//
// Search and its index lane:
//   - search.go, sequence.go: search over the index, sequence neighbours
//     from typed links.
//   - recall (the context within a token budget) is package vault/recall,
//     on the exported API and hooks_recall.go (a planned search, who may
//     read a note, its title, the notes one link away).
//   - the index kept up to date in the background (its first build, the
//     lane of long notes, a rebuild beside the live one, the notes not
//     indexed yet read by a search meanwhile, the collector's setting) is
//     package vault/indexing's Keeper; index.go is the vault as the keeper
//     reads it (each note as a search document, its scope, the catalog's
//     changed paths, the embedder) and the index's exported calls;
//     opentexts.go keeps the texts a fresh clone's open read last, for the
//     searches of its first build.
//
// The memory families and maintenance:
//   - session.go, memory.go: start_session and the agent's memory about the
//     user and projects.
//   - the two families are packages of their own, built on the exported
//     API: vault/treaisure (captured thoughts) and vault/hindsight (memory
//     banks). hooks_families.go holds the few hooks they need beyond it (a
//     commit, a search on one scope, the catalog's ids, the links around a
//     note, a read that follows no link, state attached to the open
//     vault); vault imports neither.
//   - trash.go, ids.go, conflictcopy.go, conflictlinks.go, linkmigrate.go,
//     ancestry.go: the trash, copied ids, conflict copies, old link
//     formats, commit ancestry.
//   - cairn doctor and --fix are package vault/doctor; hooks_doctor.go
//     holds what it asks of the vault beyond the rest of the exported API:
//     the catalog's paths and notes, the link audit, the watched folders,
//     and the repairs that commit through the write path.
//
// docs/architecture.md describes the whole.
package vault
