package hindsight

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/note"
	"gopkg.in/yaml.v3"
)

// Bounds of a fact.
const (
	maxFactBytes    = 100_000
	maxContextBytes = 200
)

// Put stores one fact in a bank, creating the bank on its first fact
// (when the caller may reach that bank id). One commit, like any write.
func (b *Banks) Put(c access.Caller, bank, content, factContext, explanation string) (*vault.Written, error) {
	for _, f := range []struct{ arg, val string }{{"bank_id", bank}, {"content", content}, {"context", factContext}, {"explanation", explanation}} {
		if err := vault.ValidText(f.arg, f.val); err != nil {
			return nil, err
		}
	}
	if !b.mayReachBank(c, bank) {
		return nil, &BankError{bank}
	}
	if c.Ceiling < access.RoleWrite {
		return nil, fmt.Errorf("%w: this token may not write", vault.ErrForbidden)
	}
	content = strings.TrimSpace(content)
	switch {
	case content == "":
		return nil, argErr("content", "is empty")
	case len(content) > maxFactBytes:
		return nil, argErr("content", "is longer than %d bytes", maxFactBytes)
	case strings.TrimSpace(factContext) == "":
		return nil, argErr("context", "is empty: give a category such as work_history")
	case len(factContext) > maxContextBytes:
		return nil, argErr("context", "is longer than %d bytes", maxContextBytes)
	}
	b.mu.Lock() // before the folder is chosen: two first facts make one folder
	defer b.mu.Unlock()
	folder, ok := b.bankFolder(bank)
	if !ok {
		return nil, &BankError{bank}
	}
	id := note.NewID()
	p := factPath(folder, content, id)
	if err := b.v.NoSymlinks("bank_id", p); err != nil {
		return nil, err
	}
	factContext = strings.TrimSpace(factContext)
	fm := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	set := func(k, val string) {
		fm.Content = append(fm.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: k}, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: val})
	}
	set("id", id)
	set("type", "fact")
	set("fact_type", FactType(content))
	set("context", factContext)
	if e := strings.TrimSpace(explanation); e != "" {
		set("explanation", e)
	}
	if d, ok := findDate(factContext + "\n" + content); ok {
		set("event_date", d)
	}
	set("created", time.Now().UTC().Format(note.DateTimeLayout))
	// Facts put one after another in the same context are a sequence (the
	// turns of one conversation, the steps of one story): linked, search
	// indexes each with its neighbours (docs/search-ranking.md, "What a memory search uses beyond words").
	if prev := b.lastFact(folder, factContext); prev != "" {
		follows := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle, Content: []*yaml.Node{note.LinkItem(strings.TrimSuffix(prev, ".md"))}}
		fm.Content = append(fm.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "follows"}, follows)
	}
	head, err := yaml.Marshal(fm)
	if err != nil {
		return nil, err
	}
	data := []byte("---\n" + string(head) + "---\n" + content + "\n")
	hash, err := b.v.Commit(c, fmt.Sprintf("Remember in bank %s", folder), id, []gitstore.Change{{Path: p, Content: data, CheckVersion: true, ExpectVersion: "", RequireClean: true}})
	if err != nil {
		return nil, err
	}
	b.last[folder+"\x00"+factContext] = p
	return &vault.Written{ID: id, Path: p, Title: strings.TrimSuffix(path.Base(p), ".md"), VersionToken: hash}, nil
}

// factPath names a fact's file after its first words, with the id's tail
// to keep two facts that start alike apart.
func factPath(bank, content, id string) string {
	return vault.BanksDir + "/" + bank + "/" + vault.FileNameFrom(content, id)
}

// FactType decides a fact's hindsight type from its words, the same way
// every time: `opinion` when it states a belief or judgement in the first
// person ("I think", "I believe", "in my opinion", "I prefer", "should"),
// `experience` when it tells what the speaker did or lived ("I", "we",
// "my", "our" as its subject), `world` otherwise (facts about the user or
// the world). A person may change it in the note's frontmatter.
func FactType(content string) string {
	l := " " + strings.ToLower(content) + " "
	for _, m := range []string{" i think", " i believe", " i feel", " in my opinion", " i prefer", " i'd rather", " i would rather", " i like", " i love", " i hate", " should ", " i'm convinced", " i am convinced"} {
		if strings.Contains(l, m) {
			return "opinion"
		}
	}
	first := strings.ToLower(strings.Trim(strings.Fields(content + " x")[0], ",.:;!?\"'"))
	switch first {
	case "i", "i'm", "i've", "i'd", "we", "we're", "we've", "my", "our":
		return "experience"
	}
	return "world"
}

// lastFact is the path of the last fact put in a bank with that context
// ("" when none): remembered, or found once by reading the bank (the
// newest by id). The caller holds b.mu.
func (b *Banks) lastFact(bank, factContext string) string {
	key := bank + "\x00" + factContext
	if p, ok := b.last[key]; ok {
		if _, known := b.v.NoteID(p); known {
			return p
		}
	}
	dir := vault.BanksDir + "/" + bank + "/"
	best, bestID := "", ""
	for p, id := range b.v.IDsUnder(dir) {
		if id <= bestID {
			continue
		}
		if f, ok := b.factOf(p); ok && f.Context == factContext {
			best, bestID = p, id
		}
	}
	b.last[key] = best
	return best
}

var (
	isoDate  = regexp.MustCompile(`\b(\d{4})-(\d{2})-(\d{2})\b`)
	dayMonth = regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)? (january|february|march|april|may|june|july|august|september|october|november|december),? (\d{4})\b`)
	monthDay = regexp.MustCompile(`(?i)\b(january|february|march|april|may|june|july|august|september|october|november|december) (\d{1,2})(?:st|nd|rd|th)?,? (\d{4})\b`)
)

// findDate reads the first full, valid date written in text
// ("2023-05-08", "8 May, 2023", "May 8, 2023"): a fact's event_date.
func findDate(text string) (string, bool) {
	type found struct {
		at   int
		date string
	}
	var all []found
	for _, m := range isoDate.FindAllStringIndex(text, -1) {
		if t, err := time.Parse("2006-01-02", text[m[0]:m[1]]); err == nil {
			all = append(all, found{m[0], t.Format("2006-01-02")})
		}
	}
	parse := func(at int, day, month, year string) {
		t, err := time.Parse("2 January 2006", day+" "+strings.ToUpper(month[:1])+strings.ToLower(month[1:])+" "+year)
		if err == nil {
			all = append(all, found{at, t.Format("2006-01-02")})
		}
	}
	for _, m := range dayMonth.FindAllStringSubmatchIndex(text, -1) {
		parse(m[0], text[m[2]:m[3]], text[m[4]:m[5]], text[m[6]:m[7]])
	}
	for _, m := range monthDay.FindAllStringSubmatchIndex(text, -1) {
		parse(m[0], text[m[4]:m[5]], text[m[2]:m[3]], text[m[6]:m[7]])
	}
	if len(all) == 0 {
		return "", false
	}
	sort.Slice(all, func(i, j int) bool { return all[i].at < all[j].at })
	return all[0].date, true
}
