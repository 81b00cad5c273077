package treaisure

import (
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/vault/note"
	"github.com/cairn-dev/cairn/wikilinks"
)

// Topics and entities of a thought, from what the vault knows and a light
// deterministic extraction (docs/families.md, "treaisure"):
//   - entities: the notes it links to ([[...]]), then runs of capitalised
//     words that do not start a sentence (names, places, products);
//   - topics: its tags, then its three most frequent words of five letters
//     or more that are not stop words (ties: alphabetical).
var capRun = regexp.MustCompile(`\p{Lu}[\p{L}\p{N}'’-]*(?:\s+\p{Lu}[\p{L}\p{N}'’-]*)*`)

func thoughtEntities(n *note.Note) []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		s = strings.TrimSpace(s)
		if s != "" && !seen[strings.ToLower(s)] {
			seen[strings.ToLower(s)] = true
			out = append(out, s)
		}
	}
	for _, l := range wikilinks.Parse(n.Body) {
		add(l.Target)
	}
	body := string(n.Body)
	for _, loc := range capRun.FindAllStringIndex(body, -1) {
		if sentenceStart(body, loc[0]) {
			// "Nous lançons..." is not a name; "Paris" after it would be.
			rest := strings.Fields(body[loc[0]:loc[1]])
			if len(rest) < 2 {
				continue
			}
			add(strings.Join(rest[1:], " "))
			continue
		}
		add(body[loc[0]:loc[1]])
	}
	return out
}

func sentenceStart(s string, i int) bool {
	j := i - 1
	for j >= 0 && (s[j] == ' ' || s[j] == '\t' || s[j] == '"' || s[j] == '(' || s[j] == '\'' || s[j] == '*') {
		j--
	}
	return j < 0 || s[j] == '.' || s[j] == '!' || s[j] == '?' || s[j] == '\n' || s[j] == ':'
}

func thoughtTopics(n *note.Note) []string {
	out := append([]string{}, n.Tags...)
	counts := map[string]int{}
	for _, w := range strings.FieldsFunc(strings.ToLower(string(n.Body)), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if utf8.RuneCountInString(w) >= 5 && !topicStop[w] {
			counts[w]++
		}
	}
	words := make([]string, 0, len(counts))
	for w := range counts {
		words = append(words, w)
	}
	sort.Slice(words, func(i, j int) bool {
		if counts[words[i]] != counts[words[j]] {
			return counts[words[i]] > counts[words[j]]
		}
		return words[i] < words[j]
	})
	return append(out, words[:min(3, len(words))]...)
}

// topicStop are frequent long words that say nothing of a topic.
var topicStop = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`about above after again against because been before being below between could doing during every having other ought should their theirs there these they'd those through under until where which while would yours yourself
	aussi autre autres avant avec avoir cette comme depuis encore entre était êtes étions faire leurs mêmes notre nous parce pendant peut plus pour quand quelle quelque sans selon sont sous toujours tous toute toutes très votre vous`) {
		topicStop[w] = true
	}
}
