// Package vault is cairn's domain: notes (YAML frontmatter + Markdown body)
// with stable ids and titles, classes, spaces and projects named by handles,
// each principal's personal domain, the trash, path safety, and the write
// path that ties a file change to exactly one git commit.
//
// Every operation takes the Principal it acts for and checks access itself,
// whatever layer called it: the MCP tools, the command line or a test.
// The Markdown files and their git history are the truth; everything the
// vault keeps in memory or under .cairn/cache/ is derived and rebuildable.
package vault
