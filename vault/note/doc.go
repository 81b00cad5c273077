// Package note is cairn's note model: one Markdown file with YAML
// frontmatter, as people write it in Obsidian and as cairn edits it.
//
// It knows nothing of vaults, git, access or search: a Note is parsed from
// a path and the file's bytes (Parse), edited in memory, and rendered back
// (Render). What it guarantees is what makes a shared vault livable:
//   - note.go: parsing (a frontmatter that is not YAML still reads; its
//     error is kept), the id (saved, or derived from the path), the title
//     (the first H1, else the file name), rendering byte for byte when
//     nothing changed.
//   - split.go: where the frontmatter ends (github.com/adrg/frontmatter),
//     its text handed back unparsed.
//   - summary.go: what the vault's catalog keeps of a note (Summarize),
//     read without the YAML parser when the frontmatter is of the plain
//     shape nearly every note's is, else through Parse, to the same result.
//   - fmedit.go: a write to one property changes only that property's
//     lines, so a diff shows one change, not a restyled block.
//   - props.go: properties as Obsidian types them (text, lists, dates),
//     typed links as list properties named after their type, the names a
//     link type cannot take.
//   - legacylinks.go: the old `links:` list of typed links, still read and
//     moved into properties at the next write.
//   - outline.go: the headings a Markdown reader shows (goldmark).
//
// Package vault decides where a note lives, who may read it and how it is
// committed; this package only says what a note holds.
package note
