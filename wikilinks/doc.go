// Package wikilinks turns notes into a graph, as Obsidian reads them.
//
// It parses the links people write in Markdown with goldmark, so nothing
// inside code counts: wikilinks ([[Note]], [[Note|label]], [[Note#H1#H2]],
// [[Note#^block]], [[#Heading]], [[folder/Note]], [[Note.md]]), embeds
// (![[pic.png]]), Markdown links and images to vault files
// ([t](Folder/My%20Note.md), [t](<My Note.md>), ![](a.pdf), relative
// ../x/Note.md), and skips Obsidian's %% comments %% and external URLs.
// Each link keeps where its target is written and in what style, for a
// rewrite in place.
//
// It resolves a link as Obsidian does (resolve.go: file name or path,
// case ignored, same folder first, else the shortest path; attachments
// are targets too), then, where Obsidian finds nothing, by cairn's own
// ways (id, H1 title, alias, folded); every edge says what Obsidian makes
// of it, and ties are reported instead of guessed. It answers outgoing and
// incoming edges of any note.
//
// Resolution is computed when asked, from an index of names and files
// kept current note by note, so a rename or a new note changes what links
// resolve to at once, with no cascade of derived state to keep right: a
// link to a note that does not exist yet (a forward reference) resolves
// the moment a note with that name appears.
package wikilinks
