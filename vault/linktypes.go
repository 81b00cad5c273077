package vault

import "github.com/cairn-dev/cairn/vault/note"

import "encoding/json"

// checkLinkType checks a link type given to be written: a lower-case word
// (a property name Obsidian and YAML take as is), not one of the names
// with another meaning, and not a property the vault's Obsidian settings
// type as something other than a list.
func (v *Vault) checkLinkType(arg, typ string) error {
	if !note.ValidLinkType(typ) {
		return argErr(arg, "%q must be a lower-case word like depends_on", typ)
	}
	if note.ReservedProperty(typ) {
		return argErr(arg, "%q is a property with another meaning in a note's frontmatter; choose another type (related, depends_on, supersedes...)", typ)
	}
	if t, ok := v.obsidianTypes()[typ]; ok && t != "multitext" {
		return argErr(arg, "%q is a %s property in the vault's Obsidian settings (.obsidian/types.json); a typed link is a list property: choose another type", typ, t)
	}
	return nil
}

// obsidianTypes reads the property types the vault's Obsidian settings
// give (.obsidian/types.json: {"types": {"name": "multitext"}}); none when
// the file is missing or unreadable.
func (v *Vault) obsidianTypes() map[string]string {
	data, err := readFileNoFollow(v.abs(".obsidian/types.json"))
	if err != nil || len(data) > 1<<20 {
		return nil
	}
	var f struct {
		Types map[string]string `json:"types"`
	}
	if json.Unmarshal(data, &f) != nil {
		return nil
	}
	return f.Types
}
