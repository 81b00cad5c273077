package vault

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/cairn-dev/cairn/wikilinks"
)

// ObsidianAppFile holds the vault's Obsidian settings, among them how
// Obsidian writes a new link (Settings → Files and links). A person's
// Obsidian writes it; cairn only reads it.
const ObsidianAppFile = ".obsidian/app.json"

// LinkSettings is how cairn writes a new link, as the vault's Obsidian
// would: its path in Format (wikilinks.FormatShortest, FormatRelative,
// FormatAbsolute: newLinkFormat), and whether a link in a body is a
// Markdown link (useMarkdownLinks). Links in properties are wikilinks
// whatever Markdown says: Obsidian's Properties read no other.
type LinkSettings struct {
	Format   string `json:"format"`
	Markdown bool   `json:"markdown"`
	// Problem says why the file, or a key of it, was not used ("" when
	// it was, or is absent): cairn doctor reports it.
	Problem string `json:"problem,omitempty"`
}

// linkSettings reads ObsidianAppFile at each use (it is tiny, and a
// person changes it in Obsidian while cairn runs). A missing file or key
// is Obsidian's default (shortest, wikilinks); an unreadable file, or a
// key of the wrong kind, is the default too, with the Problem said: a
// settings file never stops a write.
func (v *Vault) linkSettings() LinkSettings {
	s := LinkSettings{Format: wikilinks.FormatShortest}
	data, err := readFileNoFollow(v.abs(ObsidianAppFile))
	if errors.Is(err, fs.ErrNotExist) {
		return s
	}
	if err != nil {
		s.Problem = fmt.Sprintf("%s cannot be read (%v)", ObsidianAppFile, err)
		return s
	}
	var f map[string]json.RawMessage
	if err := json.Unmarshal(data, &f); err != nil {
		s.Problem = fmt.Sprintf("%s is not a JSON object (%v)", ObsidianAppFile, err)
		return s
	}
	if raw, ok := f["newLinkFormat"]; ok {
		var format string
		switch err := json.Unmarshal(raw, &format); {
		case err == nil && (format == wikilinks.FormatShortest || format == wikilinks.FormatRelative || format == wikilinks.FormatAbsolute):
			s.Format = format
		default:
			s.Problem = fmt.Sprintf("%s: newLinkFormat is %s, not \"shortest\", \"relative\" or \"absolute\"", ObsidianAppFile, raw)
		}
	}
	if raw, ok := f["useMarkdownLinks"]; ok {
		if err := json.Unmarshal(raw, &s.Markdown); err != nil {
			s.Problem = fmt.Sprintf("%s: useMarkdownLinks is %s, not true or false", ObsidianAppFile, raw)
		}
	}
	return s
}

// linkText is the target cairn writes for a new link to the file at path
// in the note at src, in the vault's link format, so that Obsidian opens
// that file (wikilinks.NewLinkText); pending are notes the same write
// creates. A file no link can name is refused, naming arg.
func (v *Vault) linkText(arg, src, path string, markdown bool, pending ...wikilinks.Note) (string, error) {
	if t, ok := v.graph().NewLinkText(path, src, v.linkSettings().Format, markdown, pending...); ok {
		return t, nil
	}
	return "", argErr(arg, "%s cannot be linked so that Obsidian opens it (a link cannot hold # | [ ] ^ of its name, or another file's path differs from it only by case); rename it first", path)
}
