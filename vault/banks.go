package vault

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/search"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/note"
	"gopkg.in/yaml.v3"
)

// Memory banks (the hindsight toolset): banks/<bank_id>/, one note per
// fact, the content verbatim as the body, its context (category), type and
// the caller's explanation in frontmatter. A person reads, edits and
// `git log`s them like any note; the gateway tools never see them.

// ErrBankNotFound is the answer for a bank that does not exist and for one
// the caller may not reach: the two are never told apart.
var ErrBankNotFound = errors.New("memory bank not found")

// BankError names the bank in hindsight's own words.
type BankError struct{ Bank string }

func (e *BankError) Error() string { return fmt.Sprintf("Memory bank '%s' not found", e.Bank) }
func (e *BankError) Unwrap() error { return ErrBankNotFound }

// bankIDPattern: what a bank id may be (a user id, an email, a session id),
// and safe as one folder name.
var bankIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}$`)

// ValidBankID says whether id can name a bank. It names a folder, so
// neither a Windows device name nor a trailing dot (safeNewName).
func ValidBankID(id string) error {
	if !bankIDPattern.MatchString(id) || strings.Contains(id, "..") {
		return fmt.Errorf("%q is not a bank id (letters, digits, . _ @ + -; up to 128; starting with a letter or digit)", id)
	}
	if err := safeNewName(id); err != nil {
		return fmt.Errorf("%q is not a bank id: %w", id, err)
	}
	return nil
}

// Bank ids compare without case everywhere: the folder, access.yaml's
// grants, a token's --banks. A case-insensitive disk (macOS, Windows)
// cannot hold banks/alice and banks/ALICE apart, so they can only be one
// bank; and an owner who writes to ALICE_BANK must not strand the person
// granted alice_bank. The folder keeps the spelling of the first fact.
func sameBank(a, b string) bool { return strings.EqualFold(a, b) }

// bankFolder is the folder name of bank id: the existing folder that
// matches it without case, or the id itself for a new bank. ok is false
// when two folders match (made by hand on a case-sensitive disk): the id
// is ambiguous and neither is reached.
func (v *Vault) bankFolder(bank string) (folder string, ok bool) {
	f, err := os.Open(v.abs(BanksDir))
	if err != nil {
		return bank, true
	}
	names, _ := f.Readdirnames(-1) // unsorted, no stat: one bank per user makes a big folder
	f.Close()
	for _, name := range names {
		if sameBank(name, bank) {
			if folder != "" {
				return "", false
			}
			folder = name
		}
	}
	if folder == "" {
		return bank, true
	}
	return folder, true
}

// bankPath splits banks/<bank>/<rest>.
func bankPath(p string) (bank, rest string, ok bool) {
	if !strings.HasPrefix(p, BanksDir+"/") {
		return "", "", false
	}
	bank, rest, _ = strings.Cut(p[len(BanksDir)+1:], "/")
	return bank, rest, bank != ""
}

// mayReachBank: the owner reaches every bank; another principal the banks
// access.yaml grants it; a token's bank list narrows either.
func (v *Vault) mayReachBank(c access.Caller, bank string) bool {
	if ValidBankID(bank) != nil {
		return false
	}
	same := func(b string) bool { return sameBank(b, bank) }
	if c.Banks != nil && !slices.ContainsFunc(c.Banks, same) {
		return false
	}
	a, err := v.accessNow()
	if err != nil {
		return false
	}
	return c.Principal == a.Owner || slices.ContainsFunc(a.Banks[c.Principal], same)
}

func (v *Vault) bankExists(bank string) bool {
	fi, err := os.Lstat(v.abs(BanksDir + "/" + bank)) // a symlink is no bank
	return err == nil && fi.IsDir()
}

// BankFact is one fact as hindsight_search returns it.
type BankFact struct {
	ID         string  `json:"id"`
	Text       string  `json:"text"`
	Type       string  `json:"type"`
	Context    string  `json:"context"`
	EventDate  *string `json:"event_date"`
	DocumentID *string `json:"document_id"`
}

// Bounds of a fact.
const (
	maxFactBytes    = 100_000
	maxContextBytes = 200
)

// BankPut stores one fact in a bank, creating the bank on its first fact
// (when the caller may reach that bank id). One commit, like any write.
func (v *Vault) BankPut(c access.Caller, bank, content, factContext, explanation string) (*Written, error) {
	for _, f := range []struct{ arg, val string }{{"bank_id", bank}, {"content", content}, {"context", factContext}, {"explanation", explanation}} {
		if err := validText(f.arg, f.val); err != nil {
			return nil, err
		}
	}
	if !v.mayReachBank(c, bank) {
		return nil, &BankError{bank}
	}
	if c.Ceiling < access.RoleWrite {
		return nil, fmt.Errorf("%w: this token may not write", ErrForbidden)
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
	v.bankMu.Lock() // before the folder is chosen: two first facts make one folder
	defer v.bankMu.Unlock()
	folder, ok := v.bankFolder(bank)
	if !ok {
		return nil, &BankError{bank}
	}
	id := note.NewID()
	p := v.factPath(folder, content, id)
	if err := v.noSymlinks("bank_id", p); err != nil {
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
	if prev := v.lastFact(folder, factContext); prev != "" {
		follows := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle, Content: []*yaml.Node{note.LinkItem(strings.TrimSuffix(prev, ".md"))}}
		fm.Content = append(fm.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "follows"}, follows)
	}
	head, err := yaml.Marshal(fm)
	if err != nil {
		return nil, err
	}
	data := []byte("---\n" + string(head) + "---\n" + content + "\n")
	hash, err := v.commit(c, fmt.Sprintf("Remember in bank %s", folder), id, []gitstore.Change{{Path: p, Content: data, CheckVersion: true, ExpectVersion: "", RequireClean: true}})
	if err != nil {
		return nil, err
	}
	v.bankLast[folder+"\x00"+factContext] = p
	return &Written{ID: id, Path: p, Title: strings.TrimSuffix(baseName(p), ".md"), VersionToken: hash}, nil
}

// factPath names a fact's file after its first words, with the id's tail
// to keep two facts that start alike apart.
func (v *Vault) factPath(bank, content, id string) string {
	return BanksDir + "/" + bank + "/" + fileNameFrom(content, id)
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

// Default and bounds of hindsight_search's budget.
const (
	DefaultBankTokens = 4096
	MinBankTokens     = 8 // {"results":[]} alone takes 4
	MaxBankTokens     = 100_000
	bankCandidates    = 200
)

// BankSearch searches one bank (hybrid search), packing facts into at most
// maxTokens tokens of results, counted with the real tokenizer on each
// fact's JSON as returned.
func (v *Vault) BankSearch(ctx context.Context, c access.Caller, bank, query string, maxTokens int) ([]BankFact, error) {
	for _, f := range []struct{ arg, val string }{{"bank_id", bank}, {"query", query}} {
		if err := validText(f.arg, f.val); err != nil {
			return nil, err
		}
	}
	folder, ok := v.bankFolder(bank)
	if !v.mayReachBank(c, bank) || !ok || !v.bankExists(folder) {
		return nil, &BankError{bank}
	}
	if strings.TrimSpace(query) == "" {
		return nil, argErr("query", "is empty")
	}
	if maxTokens == 0 {
		maxTokens = DefaultBankTokens
	}
	if maxTokens < MinBankTokens || maxTokens > MaxBankTokens {
		return nil, argErr("max_tokens", "must be between %d and %d", MinBankTokens, MaxBankTokens)
	}
	_, res, err := v.runSearch(ctx, search.Query{Text: query, Mode: search.Hybrid, Limit: bankCandidates, Filter: search.Filter{Scopes: []string{"b:" + folder}}})
	if err != nil {
		return nil, err
	}
	out := []BankFact{}
	used := search.Tokens(`{"results":[]}`)
	for _, h := range res.Hits {
		if maxTokens-used < minFactTokens() {
			break // no fact is that short: reading the others is wasted
		}
		f, ok := v.factOf(h.Path)
		if !ok {
			continue
		}
		b, _ := json.Marshal(f)
		n := search.Tokens(string(b)) + 1 // and its comma
		if used+n > maxTokens {
			continue // a shorter fact further down may still fit
		}
		used += n
		out = append(out, f)
	}
	return out, nil
}

// minFactTokens is a lower bound of any fact's tokens in the answer: its
// keys and quotes alone (less a margin for merges at the boundaries).
var minFactTokens = sync.OnceValue(func() int {
	return search.Tokens(`{"id":"","text":"","type":"","context":"","event_date":null,"document_id":null}`) - 4
})

// factOf reads a fact note back.
func (v *Vault) factOf(p string) (BankFact, bool) {
	data, err := readFileNoFollow(v.abs(p))
	if err != nil {
		return BankFact{}, false
	}
	n := note.Parse(p, data)
	e := v.entry(p, false)
	f := BankFact{ID: n.ID, Text: strings.TrimSpace(string(n.Body)), Type: "world"}
	if e != nil {
		f.ID = e.ID
	}
	str := n.Scalar
	f.Context = str("context")
	if t := str("fact_type"); t == "world" || t == "experience" || t == "opinion" {
		f.Type = t
	}
	if d := str("event_date"); d != "" {
		f.EventDate = &d
	}
	if d := str("document_id"); d != "" {
		f.DocumentID = &d
	}
	return f, true
}

// GrantBank gives (or with grant false takes back) a principal's access to
// a memory bank, in .cairn/access.yaml, in one commit. The owner reaches
// every bank without a grant.
func (v *Vault) GrantBank(c access.Caller, principal, bank string, grant bool) error {
	if err := access.ValidPrincipal(principal); err != nil {
		return &ArgError{Arg: "principal", Msg: err.Error()}
	}
	if err := ValidBankID(bank); err != nil {
		return argErr("bank", "%v", err)
	}
	if v.Owner() != c.Principal {
		return fmt.Errorf("%w: only the vault owner grants access", ErrForbidden)
	}
	a, err := loadAccess(v.root)
	if err != nil {
		return err
	}
	if principal == a.Owner {
		return argErr("principal", "%s owns the vault and reaches every bank", principal)
	}
	if a.Banks == nil {
		a.Banks = map[string][]string{}
	}
	banks := slices.DeleteFunc(slices.Clone(a.Banks[principal]), func(b string) bool { return sameBank(b, bank) })
	if grant {
		banks = append(banks, bank)
		slices.Sort(banks)
	}
	if len(banks) == 0 {
		delete(a.Banks, principal)
	} else {
		a.Banks[principal] = banks
	}
	data, err := a.Marshal()
	if err != nil {
		return err
	}
	verb := "Grant"
	if !grant {
		verb = "Revoke"
	}
	_, err = v.commit(c, fmt.Sprintf("%s %s bank %s", verb, principal, bank), "", []gitstore.Change{{Path: AccessFile, Content: data}})
	if err == gitstore.ErrNothingToCommit {
		return nil
	}
	return err
}

// lastFact is the path of the last fact put in a bank with that context
// ("" when none): remembered, or found once by reading the bank (the
// newest by id). The caller holds bankMu.
func (v *Vault) lastFact(bank, factContext string) string {
	if v.bankLast == nil {
		v.bankLast = map[string]string{}
	}
	key := bank + "\x00" + factContext
	if p, ok := v.bankLast[key]; ok && v.entry(p, false) != nil {
		return p
	}
	dir := BanksDir + "/" + bank + "/"
	best, bestID := "", ""
	for path, id := range v.catalog.idsUnder(dir) {
		if id <= bestID {
			continue
		}
		if f, ok := v.factOf(path); ok && f.Context == factContext {
			best, bestID = path, id
		}
	}
	v.bankLast[key] = best
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
