// Package wikilinks turns notes into a graph: it parses the links people
// write in Markdown ([[Title]], [[Title|label]], [[Title#Heading]],
// [[Title#^block]], ![[embed]], [[path/to/note]], [[id]]) with goldmark, so
// nothing inside code counts; it resolves link targets to notes by id,
// title, alias and path, reporting ambiguity instead of guessing; and it
// answers outgoing and incoming edges of any note.
//
// Resolution is computed when asked, from an index of names kept current
// note by note, so a rename or a new note changes what links resolve to at
// once, with no cascade of derived state to keep right: a link to a note
// that does not exist yet (a forward reference) resolves the moment a note
// with that title appears.
package wikilinks
