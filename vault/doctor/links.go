package doctor

import (
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/wikilinks"
)

// How many links of each kind cairn doctor names; the rest are counted.
const linksShown = 20

// linkFindings reports the links a person should look at: those Obsidian
// shows unresolved while cairn resolves them (by id, H1 title, alias or
// folded name: an agent follows them, the person cannot), each with the
// link Obsidian would resolve to the same note; those whose target is a
// tie (Obsidian opens whichever of the files it loaded first, or two
// notes share an H1 no file name matches); and the count of forward
// references. bodyLine gives, per note path, the lines before its body.
func linkFindings(v *vault.Vault, bodyLine map[string]int) []Finding {
	var out []Finding
	unresolved, ambiguous, cairnOnly := 0, 0, 0
	format := v.ObsidianLinkSettings().Format
	for _, e := range v.LinkAudit() {
		src := v.NotePathOf(e.From)
		where := linkPlace(src, e.Link, bodyLine[src])
		switch {
		case e.Status == wikilinks.Ambiguous:
			ambiguous++
			if ambiguous <= linksShown {
				out = append(out, Finding{Level: "warning", Check: "links", Message: ambiguousMessage(v, where, src, format, e)})
			}
		case e.Status == wikilinks.Resolved:
			cairnOnly++
			if cairnOnly <= linksShown {
				out = append(out, Finding{Level: "warning", Check: "obsidian links", Message: fmt.Sprintf(
					"%s resolves only in cairn (by %s, to %s); Obsidian shows it unresolved: %s",
					where, e.How, e.Path, suggestLink(v, e.Link, src, e.Path, format))})
			}
		default:
			unresolved++
		}
	}
	out = append(out, Finding{Level: "ok", Check: "links", Message: fmt.Sprintf(
		"%d links resolve to no note yet (forward references), %d are ambiguous, %d resolve only in cairn (not in Obsidian)",
		unresolved, ambiguous, cairnOnly)})
	return out
}

func ambiguousMessage(v *vault.Vault, where, src, format string, e wikilinks.Edge) string {
	var paths []string
	for _, id := range e.Candidates {
		paths = append(paths, v.NotePathOf(id))
	}
	paths = append(paths, e.Files...)
	if e.Obsidian == wikilinks.ObsidianAmbiguous {
		return fmt.Sprintf("%s is ambiguous: Obsidian opens whichever of %s it loaded first; %s",
			where, strings.Join(paths, ", "), suggestLink(v, e.Link, src, paths[0], format))
	}
	return fmt.Sprintf("%s is ambiguous: %d notes have that %s (%s), and Obsidian resolves it to nothing; link one by its file name",
		where, len(paths), e.How, strings.Join(paths, ", "))
}

// suggestLink says what to write instead of l, in the note at src, so
// that Obsidian opens the file at path: l in its own form (a Markdown link
// stays one), its path as a new link in the vault's format would be.
func suggestLink(v *vault.Vault, l wikilinks.Link, src, path, format string) string {
	t, ok := v.NewLinkText(path, src, format, l.Form == wikilinks.FormMarkdown)
	if !ok {
		return fmt.Sprintf("no link can name %s (its name holds a character links cannot carry): rename it", path)
	}
	return "write " + linkAs(l, t) + " instead"
}

// linkPlace names a link and where it is written: "[[Target]] in
// notes/x.md line 12", or in the frontmatter for a typed link.
func linkPlace(src string, l wikilinks.Link, before int) string {
	if l.Typed || l.Line == 0 {
		return fmt.Sprintf("%s in the frontmatter of %s (%s)", linkAs(l, l.Target), src, l.Type)
	}
	return fmt.Sprintf("%s in %s line %d", linkAs(l, l.Target), src, before+l.Line)
}

// linkAs writes l with target in place of its target, in l's form.
func linkAs(l wikilinks.Link, target string) string {
	frag := ""
	if l.Fragment != "" {
		frag = "#" + l.Fragment
		if l.Form == wikilinks.FormMarkdown && !l.Angle {
			frag = "#" + l.Spell(l.Fragment)
		}
	}
	bang := ""
	if l.Type == wikilinks.TypeEmbeds {
		bang = "!"
	}
	if l.Form == wikilinks.FormMarkdown {
		t := l.Spell(target)
		if l.Angle {
			t = "<" + t + ">"
		}
		return fmt.Sprintf("%s[%s](%s%s)", bang, l.Label, t, frag)
	}
	return bang + "[[" + target + frag + "]]"
}

// linkSettingsFinding is cairn doctor's line on how new links are written.
func linkSettingsFinding(v *vault.Vault) Finding {
	s := v.ObsidianLinkSettings()
	form := "wikilinks"
	if s.Markdown {
		form = "Markdown links in bodies, wikilinks in properties"
	}
	if s.Problem != "" {
		return Finding{Level: "warning", Check: "obsidian settings", Message: fmt.Sprintf(
			"%s; cairn writes new links in Obsidian's defaults for what it cannot read (now: %s path, %s) until it is fixed", s.Problem, s.Format, form)}
	}
	return Finding{Level: "ok", Check: "obsidian settings", Message: fmt.Sprintf("cairn writes new links as the vault's Obsidian does: %s path, %s", s.Format, form)}
}
