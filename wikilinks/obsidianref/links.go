package obsidianref

import (
	"net/url"
	"regexp"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Link is one link of a file as Obsidian reads it.
type Link struct {
	Line     int    // 1-based line of the file, frontmatter included
	Path     string // the link path: what Resolve takes
	Subpath  string // after the first #, without it: a heading (H1#H2) or ^block
	Embed    bool   // ![[…]] or ![…](…)
	Markdown bool   // [text](destination)
	Property string // the frontmatter key, for a link in a property value
}

// Target is a link and the file it opens.
type Target struct {
	Link
	To string // "" when unresolved
	OK bool
}

// Targets lists every link of the file at path with the file Obsidian
// opens for it, among vaultFiles (see Resolve).
func Targets(vaultFiles []string, path string, content []byte) []Target {
	var out []Target
	for _, l := range Links(content) {
		to, ok := Resolve(vaultFiles, path, l.Path)
		out = append(out, Target{Link: l, To: to, OK: ok})
	}
	return out
}

// Links lists the links of a Markdown file, as Obsidian's documentation
// describes them: [[wikilinks]] (with |label, #heading, #H1#H2, #^block)
// and ![[embeds]], Markdown links and images to vault files (their
// destination URL-decoded), links written as whole property values in the
// frontmatter ("[[Note]]" alone or in a list). Nothing in code (code spans,
// fenced code, indented code after a blank line) or in a %% comment %%
// (one never closed runs to the end) is a link, nor a destination with a
// URL scheme, nor a reference-style link.
func Links(content []byte) []Link {
	lines := strings.Split(strings.ReplaceAll(string(content), "\r\n", "\n"), "\n")
	var out []Link
	start := 0
	if len(lines) > 0 && strings.TrimRight(lines[0], " ") == "---" {
		for i := 1; i < len(lines); i++ {
			if t := strings.TrimRight(lines[i], " "); t == "---" || t == "..." {
				out = append(out, propertyLinks(strings.Join(lines[1:i], "\n"))...)
				start = i + 1
				break
			}
		}
	}
	s := scanner{}
	prevBlank := true
	for i := start; i < len(lines); i++ {
		line := lines[i]
		for _, l := range s.line(line, prevBlank) {
			l.Line = i + 1
			out = append(out, l)
		}
		prevBlank = strings.TrimSpace(line) == "" && !s.inComment
	}
	return out
}

// propertyLinks reads the links of a frontmatter: a property whose value
// is a "[[…]]" string, or a list of them.
func propertyLinks(fm string) []Link {
	var props map[string]any
	if yaml.Unmarshal([]byte(fm), &props) != nil {
		return nil
	}
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []Link
	for _, k := range keys {
		vals := []any{props[k]}
		if list, ok := props[k].([]any); ok {
			vals = list
		}
		for _, v := range vals {
			s, ok := v.(string)
			s = strings.TrimSpace(s)
			if !ok || !strings.HasPrefix(s, "[[") || !strings.HasSuffix(s, "]]") {
				continue
			}
			if l, ok := wiki(s[2:len(s)-2], false); ok {
				l.Property = k
				out = append(out, l)
			}
		}
	}
	return out
}

// scanner reads a body line by line, keeping what spans lines: a fenced
// code block, an indented one, a comment.
type scanner struct {
	fence     string // the open fence's marker run, "" outside
	inIndent  bool
	inComment bool
}

var fenceRe = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")

func (s *scanner) line(line string, prevBlank bool) []Link {
	if s.fence != "" {
		if m := fenceRe.FindStringSubmatch(line); m != nil && m[1][0] == s.fence[0] && len(m[1]) >= len(s.fence) && strings.TrimSpace(line[len(m[0]):]) == "" {
			s.fence = ""
		}
		return nil
	}
	if !s.inComment {
		if m := fenceRe.FindStringSubmatch(line); m != nil {
			s.fence = m[1]
			return nil
		}
		indented := strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t")
		if indented && strings.TrimSpace(line) != "" && (prevBlank || s.inIndent) {
			s.inIndent = true
			return nil
		}
		if strings.TrimSpace(line) != "" {
			s.inIndent = false
		}
	}
	return s.inline(line)
}

var schemeRe = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.\-]*:|//)`)

// inline reads the links of one line, outside code spans and comments.
func (s *scanner) inline(line string) []Link {
	var out []Link
	for i := 0; i < len(line); {
		if s.inComment {
			j := strings.Index(line[i:], "%%")
			if j < 0 {
				return out
			}
			s.inComment = false
			i += j + 2
			continue
		}
		switch {
		case strings.HasPrefix(line[i:], "%%"):
			s.inComment = true
			i += 2
		case line[i] == '\\':
			i += 2
		case line[i] == '`':
			i = skipCode(line, i)
		case strings.HasPrefix(line[i:], "[[") || strings.HasPrefix(line[i:], "![["):
			embed := line[i] == '!'
			open := i + 2
			if embed {
				open++
			}
			if open < len(line) && line[open] == '[' {
				i++ // "[[[N]]": the link opens at the last two brackets
				continue
			}
			end := strings.Index(line[open:], "]]")
			if end < 0 || strings.Contains(line[open:open+end], "[[") {
				i = open
				continue
			}
			if l, ok := wiki(line[open:open+end], embed); ok {
				out = append(out, l)
			}
			i = open + end + 2
		case line[i] == '[' || strings.HasPrefix(line[i:], "!["):
			l, next, ok := markdown(line, i)
			if ok {
				out = append(out, l)
			}
			i = next
		default:
			i++
		}
	}
	return out
}

// skipCode returns where the code span opening at i ends (after its
// closing backticks), or just past the opening run when it never closes.
func skipCode(line string, i int) int {
	n := 0
	for i+n < len(line) && line[i+n] == '`' {
		n++
	}
	run := strings.Repeat("`", n)
	for j := i + n; j < len(line); {
		k := strings.Index(line[j:], run)
		if k < 0 {
			break
		}
		k += j
		if k+n == len(line) || line[k+n] != '`' {
			return k + n
		}
		for k < len(line) && line[k] == '`' {
			k++
		}
		j = k
	}
	return i + n
}

// wiki reads the inside of [[…]]: path before the first | and #.
func wiki(inner string, embed bool) (Link, bool) {
	if p := strings.Index(inner, "|"); p >= 0 {
		inner = inner[:p]
	}
	inner = strings.TrimSuffix(inner, `\`)
	path, sub, _ := strings.Cut(inner, "#")
	l := Link{Path: strings.TrimSpace(path), Subpath: strings.TrimSpace(sub), Embed: embed}
	return l, l.Path != "" || l.Subpath != ""
}

// markdown reads [text](destination) or ![alt](destination) at i: the
// link, where to go on, and whether it is a link to the vault.
func markdown(line string, i int) (Link, int, bool) {
	embed := line[i] == '!'
	open := i
	if embed {
		open++
	}
	depth := 0
	close := -1
	for j := open; j < len(line) && close < 0; j++ {
		switch line[j] {
		case '\\':
			j++
		case '[':
			depth++
		case ']':
			if depth--; depth == 0 {
				close = j
			}
		}
	}
	if close < 0 || close+1 >= len(line) || line[close+1] != '(' {
		return Link{}, open + 1, false
	}
	dest, end, ok := destination(line, close+2)
	if !ok {
		return Link{}, open + 1, false
	}
	if dest == "" || schemeRe.MatchString(dest) {
		return Link{}, end, false
	}
	path, sub, _ := strings.Cut(dest, "#")
	l := Link{Path: strings.TrimSpace(unescape(path)), Subpath: strings.TrimSpace(unescape(sub)), Embed: embed, Markdown: true}
	return l, end, l.Path != "" || l.Subpath != ""
}

// destination reads a link destination and its optional title from j to
// the closing parenthesis: <…>, or a run without spaces whose parentheses
// balance.
func destination(line string, j int) (dest string, end int, ok bool) {
	for j < len(line) && line[j] == ' ' {
		j++
	}
	if j < len(line) && line[j] == '<' {
		k := strings.IndexByte(line[j:], '>')
		if k < 0 {
			return "", 0, false
		}
		dest, j = line[j+1:j+k], j+k+1
	} else {
		depth, k := 0, j
		for ; k < len(line); k++ {
			c := line[k]
			if c == '\\' && k+1 < len(line) && isPunct(line[k+1]) {
				k++
				continue
			}
			if c == ' ' || c == ')' && depth == 0 {
				break
			}
			if c == '(' {
				depth++
			} else if c == ')' {
				depth--
			}
		}
		dest, j = line[j:min(k, len(line))], k
	}
	rest := line[min(j, len(line)):]
	t := strings.TrimLeft(rest, " ")
	if strings.HasPrefix(t, "\"") {
		if q := strings.Index(t[1:], "\""); q >= 0 {
			t = strings.TrimLeft(t[q+2:], " ")
		}
	}
	if !strings.HasPrefix(t, ")") {
		return "", 0, false
	}
	return dest, len(line) - len(t) + 1, true
}

// unescape undoes backslash escapes, then URL-decodes (keeping the text
// when it is not valid percent-encoding).
func unescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && isPunct(s[i+1]) {
			i++
		}
		b.WriteByte(s[i])
	}
	if d, err := url.PathUnescape(b.String()); err == nil {
		return d
	}
	return b.String()
}

// isPunct: the ASCII punctuation a backslash escapes in Markdown.
func isPunct(c byte) bool {
	return strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", c) >= 0
}
